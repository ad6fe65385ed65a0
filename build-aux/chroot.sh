# shellcheck shell=bash
# build-aux/chroot.sh: what check-fresh.sh and ci-deb.sh share to make and
# unmake fresh Debian roots, sourced by both: the mirror to debootstrap
# from, the mounts a root needs (/proc and a /dev of its own), and how to
# end what runs in a root and unmount it.  Callers define say().

# mirror SUITE: the URI of Debian's main archive for SUITE in apt's
# sources, deb822 (*.sources) first, then the one-line format
# (sources.list); FRESH_MIRROR overrides them.
mirror() {
	local suite=$1 f uri
	if [[ -n ${FRESH_MIRROR:-} ]]; then
		echo "$FRESH_MIRROR"
		return
	fi
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -r $f ]] || continue
		uri=$(awk -v suite="$suite" '
			function flush() {
				if (deb && has && uri != "" && !off && !found) {
					print uri
					found = 1
				}
				deb = has = off = 0
				uri = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			tolower($1) == "types:" {
				for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1
			}
			tolower($1) == "suites:" {
				for (i = 2; i <= NF; i++) if ($i == suite) has = 1
			}
			tolower($1) == "uris:" { uri = $2 }
			tolower($1) == "enabled:" && tolower($2) == "no" { off = 1 }
			END { flush() }' "$f")
		[[ -n $uri ]] && { echo "$uri"; return; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -r $f ]] || continue
		uri=$(awk -v suite="$suite" '
			$1 != "deb" { next }
			{
				i = 2
				if ($i ~ /^\[/) while (i <= NF && $i !~ /\]$/) i++
				if ($i ~ /^\[/ || $i ~ /\]$/) i++
				if ($(i + 1) == suite) { print $i; exit }
			}' "$f")
		[[ -n $uri ]] && { echo "$uri"; return; }
	done
	return 1
}

# mounts_under DIR: the mount points at or below DIR, deepest first.
mounts_under() {
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' \
	    /proc/self/mountinfo | sort -r
}

# root_prepare ROOT: name resolution for apt-get, no service started by a
# package, /proc, and a /dev of its own: a tmpfs with the usual nodes and
# a private devpts instance, never the host's /dev, so that nothing done
# inside, nor an rm -rf of the root, can touch the host's devices.
root_prepare() {
	local root=$1 n major minor
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	# debootstrap writes no /etc/hosts, which the installer (netcfg),
	# Docker and systemd-nspawn all do: without one, localhost is asked
	# of the nameserver.  The installer's loopback lines, so that the
	# suites resolve localhost as on a real install: ::1 and 127.0.0.1,
	# ::1 first where the host has IPv6 (RFC 6724).
	[[ -e $root/etc/hosts ]] ||
	    printf '%s\n' '127.0.0.1	localhost' \
		'::1		localhost ip6-localhost ip6-loopback' >"$root/etc/hosts"
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	mount -t proc proc "$root/proc"
	mount -t tmpfs -o mode=755,size=16m,nosuid tmpfs "$root/dev"
	for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
		IFS=: read -r n major minor <<<"$n"
		mknod -m 666 "$root/dev/$n" c "$major" "$minor"
	done
	# A private devpts: spool.bats runs -I on a terminal (script(1)).
	mkdir -m 755 "$root/dev/pts"
	mkdir -m 1777 "$root/dev/shm"
	mount -t devpts -o newinstance,ptmxmode=0666,mode=620,gid=5 devpts \
	    "$root/dev/pts"
	ln -s pts/ptmx "$root/dev/ptmx"
	for n in fd:/proc/self/fd stdin:/proc/self/fd/0 \
	    stdout:/proc/self/fd/1 stderr:/proc/self/fd/2; do
		ln -s "${n#*:}" "$root/dev/${n%%:*}"
	done
}

# release ROOT: ends every process whose root is ROOT, by pid, then
# unmounts what is mounted there.  Fails if anything stays mounted.
release() {
	local root=$1 p pids mp
	for _ in 1 2 3; do
		pids=""
		for p in /proc/[0-9]*; do
			[[ $(readlink "$p/root" 2>/dev/null) == "$root" ]] &&
			    pids+=" ${p#/proc/}"
		done
		[[ -z $pids ]] && break
		# shellcheck disable=SC2086 # pids are words
		kill -KILL $pids 2>/dev/null || true
		sleep 0.5
	done
	for mp in $(mounts_under "$root"); do
		umount "$mp" 2>/dev/null || umount -l "$mp" ||
		    say "cannot unmount $mp"
	done
	[[ -z $(mounts_under "$root") ]]
}
