# mk/fresh.mk: included by GNUmakefile (GNU make only).
#
# make check-fresh: `make demo && make check` in a fresh, minimal Debian 12
# root (debootstrap, chroot) that has nothing but git, make and gcc, from
# a clean clone of HEAD: proves that the two set-up commands install all
# that they need.  Needs root and the packages of
# build-aux/packages-fresh.txt; takes three to six minutes, all of it
# downloaded and built anew.  See build-aux/check-fresh.sh.

check-fresh:
	bash build-aux/check-fresh.sh

.PHONY: check-fresh
