//go:build race

package gateway

// raceBuild: the tests run with -race, so the gateway binary they start is
// built with -race too, and a race in the gateway fails the test.
const raceBuild = true
