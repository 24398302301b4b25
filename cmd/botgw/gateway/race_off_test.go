//go:build !race

package gateway

// raceBuild: the tests run without -race (see race_on_test.go).
const raceBuild = false
