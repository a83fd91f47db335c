//go:build linux

// Package onlylinux has no file for any other system.
package onlylinux
