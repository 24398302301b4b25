// Package docs holds botgw's user documentation (the Markdown pages beside
// this file). It has no code; its tests check the pages against the tree:
// every relative link resolves, every config key and HTTP route is
// documented, and the module zip that `go install` fetches holds every
// package.
package docs
