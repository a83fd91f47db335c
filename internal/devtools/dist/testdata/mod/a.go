// Package fixture is what dist check is tested on: a function defined
// only on Linux, a package with files for Linux only, and a constant too
// big for a 32-bit int.
package fixture

import _ "fixture/onlylinux"

var _ = linuxOnly()

var _ int = 1 << 40
