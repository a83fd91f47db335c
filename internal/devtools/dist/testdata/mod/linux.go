//go:build linux

package fixture

func linuxOnly() int { return 1 }
