# SPDX-License-Identifier: GPL-2.0-or-later
# vhostd - one plain Makefile.  Sources are found by directory, so adding a
# file to a layer needs no edit here.
#
# A test or bench program is one file (tests/unit/test_P.c,
# tests/integration/P.c, bench/P.c) or, once it grows, that file plus the
# sources in a directory named after it (tests/integration/P/*.c, with the
# program's private header there): they are linked into the one binary.
# The program wildcards below do not descend into those directories.
#
#   make            vhostd, vhostctl, libvdrv.a and the test programs
#   make check      unit tests (no privileges, milliseconds)
#   make fuzz       libFuzzer harnesses (clang, ASan+UBSan)
#   make WERROR=1   warnings are errors (CI)
#   make install    vhostd, vhostctl, man pages, the systemd unit, its
#                   sysusers.d/tmpfiles.d entries, /etc/default/vhostd and
#                   /etc/vhostd/vhostd.conf under DESTDIR/PREFIX
#                   (doc/operations.md, "Installing")
#   make uninstall  the same files removed

CC	?= cc
O	?= build
WERROR	?= 0

# make install: where things go.  SYSCONFDIR is /etc whatever PREFIX is
# (the unit reads its options from there); the unit, sysusers.d and
# tmpfiles.d directories are ones systemd searches for both /usr/local and
# /usr (Debian 12 keeps units in /lib/systemd/system: debian/rules says so).
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
SBINDIR		?= $(PREFIX)/sbin
MANDIR		?= $(PREFIX)/share/man
SYSCONFDIR	?= /etc
SYSTEMDUNITDIR	?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR	?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR	?= $(PREFIX)/lib/tmpfiles.d
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions
DESTDIR		?=

WARN	= -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes \
	  -Wstrict-prototypes -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN	+= -Werror
endif
HARDEN	= -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
# CFLAGS/LDFLAGS are the user's (optimisation, sanitizers); what the
# code needs to build at all is always added, even to a CFLAGS given on
# the command line.
CFLAGS	?= -O2 -g
ALL_CFLAGS  = -std=c11 -D_GNU_SOURCE $(WARN) $(HARDEN) -pthread $(CFLAGS)
ALL_LDFLAGS = -pie -pthread -Wl,-z,relro,-z,now $(LDFLAGS)

DAEMON_SRCS	:= $(filter-out src/main.c,$(wildcard src/*.c src/vhost/*.c src/port/*.c src/net/*.c))
DAEMON_OBJS	:= $(DAEMON_SRCS:%.c=$(O)/%.o)
VDRV_SRCS	:= $(wildcard vdrv/*.c)
VDRV_OBJS	:= $(VDRV_SRCS:%.c=$(O)/%.o)
UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_BINS	:= $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)
ITEST_SRCS	:= $(wildcard tests/integration/*.c)
ITEST_BINS	:= $(ITEST_SRCS:tests/integration/%.c=$(O)/tests/%)
BENCH_SRCS	:= $(wildcard bench/*.c)
BENCH_BINS	:= $(BENCH_SRCS:bench/%.c=$(O)/bench/%)
FUZZ_SRCS	:= $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS	:= $(FUZZ_SRCS:tests/fuzz/%.c=$(O)/fuzz/%)

all: $(O)/vhostd $(O)/vhostctl $(O)/libvdrv.a $(UNIT_BINS) $(ITEST_BINS) $(BENCH_BINS)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# A split program's parts compile under $(O)/parts/: $(O)/bench/P is the
# program itself, so $(O)/bench/P/ cannot hold its objects.
$(O)/parts/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# parts DIR - objects of the sources in a program's directory (none if
# it has none); expanded per program through .SECONDEXPANSION below
parts = $(patsubst %.c,$(O)/parts/%.o,$(wildcard $(1)/*.c))

$(O)/libvhostd.a: $(DAEMON_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(O)/libvdrv.a: $(VDRV_OBJS)
	@rm -f $@
	ar rcs $@ $^

# The daemon loads its TAP queue-steering program with libbpf, drops
# capabilities with libcap and installs its syscall filter with libseccomp.
# Captures run their filters with libpcap's bpf_filter(), linked from
# the static library: that one object, not libpcap's dependencies (dbus,
# systemd), in the daemon.  vhostctl compiles the filters with the shared
# libpcap.  --metrics serves HTTP with libmicrohttpd.
DAEMON_LIBS = -lxdp -lbpf -lcap -lseccomp -lsystemd -lmicrohttpd \
	      -Wl,-Bstatic -lpcap -Wl,-Bdynamic

$(O)/vhostd: $(O)/src/main.o $(O)/libvhostd.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(DAEMON_LIBS)

$(O)/vhostctl: $(patsubst %.c,$(O)/%.o,$(wildcard cli/*.c))
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpcap -lm

# Each program's prerequisites name its parts: $$* is the program's stem,
# known only in the second expansion.
.SECONDEXPANSION:

# Unit tests link the daemon's library (they test its modules).
$(O)/tests/test_%: $(O)/tests/unit/test_%.o \
		   $$(call parts,tests/unit/test_$$*) $(O)/libvhostd.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lcmocka $(DAEMON_LIBS)

# Integration tests and benchmarks are "guests": they link only the
# driver-side library, never the daemon's ring or protocol code.
$(O)/tests/%: $(O)/tests/integration/%.o \
	      $$(call parts,tests/integration/$$*) $(O)/libvdrv.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^

$(O)/bench/%: $(O)/bench/%.o $$(call parts,bench/$$*) $(O)/libvdrv.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lm

check: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

# libFuzzer harnesses: the daemon sources rebuilt with sanitizers.  Built
# with -Werror: a harness that no longer matches a changed type must fail
# to build, not crash at run time.
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -g -O1 -pthread -Wall -Werror \
	      -Wno-unused-parameter \
	      -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
$(O)/fuzz/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) tests/unit/stub_host.h \
		$(DAEMON_SRCS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ $(filter-out cli/%,$(filter %.c,$^)) $(DAEMON_LIBS)

# vhostctl's reader is compiled into its harness by #include: a
# prerequisite, not a source of its own.
$(O)/fuzz/fuzz_vhostctl_json: cli/vhostctl_json.c cli/vhostctl.h

fuzz: $(FUZZ_BINS)

# The unit with the installed paths in it (rebuilt when they change).
$(O)/vhostd.service: contrib/systemd/vhostd.service.in FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		$< >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# Files `make install` puts under $(DESTDIR), and where from.
INSTALL_FILES = \
	$(SBINDIR)/vhostd:$(O)/vhostd:755 \
	$(BINDIR)/vhostctl:$(O)/vhostctl:755 \
	$(MANDIR)/man8/vhostd.8:doc/vhostd.8:644 \
	$(MANDIR)/man8/vhostctl.8:doc/vhostctl.8:644 \
	$(SYSTEMDUNITDIR)/vhostd.service:$(O)/vhostd.service:644 \
	$(SYSUSERSDIR)/vhostd.conf:contrib/systemd/vhostd.sysusers:644 \
	$(TMPFILESDIR)/vhostd.conf:contrib/systemd/vhostd.tmpfiles:644 \
	$(BASHCOMPDIR)/vhostctl:contrib/bash-completion/vhostctl:644
# The configuration: installed only where there is none (an edited one
# stays), removed by uninstall only while it is the one shipped.
CONFIG_FILES = \
	$(SYSCONFDIR)/default/vhostd:contrib/default/vhostd \
	$(SYSCONFDIR)/vhostd/vhostd.conf:contrib/vhostd.conf

install: $(O)/vhostd $(O)/vhostctl $(O)/vhostd.service
	@set -e; for f in $(INSTALL_FILES); do \
		dst=$${f%%:*}; rest=$${f#*:}; \
		echo "install $(DESTDIR)$$dst"; \
		install -D -m $${rest#*:} $${rest%:*} "$(DESTDIR)$$dst"; \
	done
	@set -e; for f in $(CONFIG_FILES); do \
		dst="$(DESTDIR)$${f%%:*}"; \
		if [ -e "$$dst" ]; then echo "keep $$dst"; \
		else echo "install $$dst"; install -D -m 644 $${f#*:} "$$dst"; fi; \
	done

uninstall:
	@for f in $(INSTALL_FILES); do \
		echo "rm $(DESTDIR)$${f%%:*}"; rm -f "$(DESTDIR)$${f%%:*}"; \
	done
	@for f in $(CONFIG_FILES); do \
		dst="$(DESTDIR)$${f%%:*}"; \
		if cmp -s $${f#*:} "$$dst"; then echo "rm $$dst"; rm -f "$$dst"; \
		elif [ -e "$$dst" ]; then echo "keep $$dst (edited)"; fi; \
	done

clean:
	rm -rf $(O)

FORCE:

.PHONY: all check fuzz clean install uninstall FORCE
# Objects made through pattern-rule chains are intermediate to make, which
# would delete them after linking and rebuild them on the next run.
.SECONDARY:
-include $(shell find $(O) -name '*.d' 2>/dev/null)
