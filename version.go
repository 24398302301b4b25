package botgw

// Version is this release of botgw (CHANGELOG.md); `botgw version` prints it.
const Version = "0.1.0"
