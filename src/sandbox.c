// SPDX-License-Identifier: GPL-2.0-or-later
/* sandbox.c - the seccomp allow-list: every syscall the running daemon
 *	       makes, and why
 *
 * DOC: Theory of Operation
 *
 * Start-up (parsing, sockets, TAPs, eBPF, the privilege drop) runs
 * unfiltered; main then calls sandbox_install(), before the workers
 * start, so every thread runs under the filter from its first
 * instruction (the filter is also synchronised to threads that exist,
 * SECCOMP_FILTER_FLAG_TSYNC).  --no-sandbox leaves it out, for debugging.
 *
 * The list is sandbox_rules[] below: one entry per syscall, or per
 * syscall and allowed argument value where the argument says what the
 * call does (socket() families, ioctl() requests, bpf() commands, clone()
 * flags, mmap() protections).  Each entry's comment says who makes the
 * call.  A syscall that is not listed, or listed with other arguments,
 * gets the default action: SECCOMP_RET_TRAP, whose SIGSYS handler writes
 * one line naming the syscall and its first arguments, then lets SIGSYS
 * kill the process.
 *
 * Why kill, and not fail the call with EPERM: an unlisted syscall is
 * either our bug (a path the list missed: loud, caught by the test
 * suite, which runs with the filter on) or code that is not ours running
 * in the process (an exploit).  Failing the call would let the second
 * carry on probing, and turn the first into an error path nobody tested.
 * A few calls get an errno instead, where that is the well-defined
 * answer their callers handle: clone3() fails with ENOSYS (glibc then
 * uses clone(), whose flags a filter can see, while clone3()'s are in
 * memory it cannot read), and open()/openat() fail with EACCES (the
 * running daemon opens no file: every fd it uses is made at start-up or
 * handed over by a peer, and a failed open is an error every caller
 * already handles, so that a future path that opens something degrades
 * into its error branch instead of a dead daemon).
 *
 * Sanitizer builds (ASan, UBSan, TSan: the test suite runs the daemon
 * under them, with the filter on) need more: the runtime writes reports
 * and log_path files (open), runs the symbolizer (fork and exec: it is
 * started here, before the filter, so that reports are symbolized by a
 * process the filter never sees), and LeakSanitizer stops the world at
 * exit from a helper that ptraces every thread (clone without
 * CLONE_THREAD, ptrace, wait4, prctl, /proc/self/task).  Those entries
 * are marked SB_SAN and exist only where a sanitizer runtime is linked
 * in (sandbox_sanitizer()); a release build never allows them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/if_tun.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "log.h"
#include "sandbox.h"
#include "util.h"

/* Syscall numbers the SIGSYS handler can name (x86-64 has ~460). */
#define SANDBOX_NR_MAX	512

/* Every sanitizer runtime (sanitizer_common) defines these; a release
 * build leaves the weak references NULL.
 */
extern void __sanitizer_print_stack_trace(void) __attribute__((weak));
extern void __sanitizer_symbolize_pc(void *pc, const char *fmt, char *out,
				     size_t out_size) __attribute__((weak));

/**
 * enum sandbox_when - the builds an entry is for
 * @SB_ALL:	every build
 * @SB_REL:	release builds only (a sanitizer build has a wider entry)
 * @SB_SAN:	sanitizer builds only (what their runtime needs)
 */
enum sandbox_when { SB_ALL, SB_REL, SB_SAN };

/* @val of an argument check that means "our own pid". */
#define SB_SELF		(~0ULL)

/**
 * struct sandbox_rule - one entry of the allow-list
 * @nr:		syscall number (libseccomp's, native architecture)
 * @when:	enum sandbox_when
 * @err:	0: allow; else fail the call with this errno
 * @arg:	argument checked (0-5), -1: any arguments
 * @mask:	bits of the argument compared (SCMP_CMP_MASKED_EQ)
 * @val:	their value (SB_SELF: getpid())
 */
struct sandbox_rule {
	int nr;
	uint8_t when;
	int err;
	int arg;
	uint64_t mask;
	uint64_t val;
};

#define SB(name)		{ SCMP_SYS(name), SB_ALL, 0, -1, 0, 0 }
#define SB_W(name, w)		{ SCMP_SYS(name), w, 0, -1, 0, 0 }
#define SB_ERR(name, w, e)	{ SCMP_SYS(name), w, e, -1, 0, 0 }
#define SB_ARG(name, w, a, m, v) { SCMP_SYS(name), w, 0, a, m, v }
/* ioctl() requests are 32 bits; the register may hold garbage above. */
#define SB_IOCTL(req, w)	SB_ARG(ioctl, w, 1, 0xffffffffULL, req)

static const struct sandbox_rule sandbox_rules[] = {
	/* ---- I/O on fds made at start-up or passed by peers ---- */
	SB(read),		/* signalfd, timerfd, kick/call eventfds */
	SB(write),		/* log lines, eventfd signals (metrics.c) */
	SB(readv),		/* TAP: frames from the kernel */
	SB(writev),		/* TAP: frames to the kernel */
	SB(recvmsg),		/* vhost-user messages with SCM_RIGHTS fds */
	SB(sendmsg),		/* vhost-user replies, HTTP responses */
	SB(recvmmsg),		/* vxlan: datagrams in bursts */
	SB(sendmmsg),		/* the same, out */
	SB(recvfrom),		/* ctl: the command line (recv); HTTP requests */
	SB(sendto),		/* ctl: the reply (send) */
	SB(close),		/* everything, at disconnect and shutdown */
	SB(shutdown),		/* guest_fault.c: end a faulted front end;
				 * libmicrohttpd: end a connection */
	/* ---- sockets ---- */
	SB(accept4),		/* front ends, ctl and HTTP clients */
	/* Client-mode ports (re)connecting, and tap_frame_max()'s ioctl
	 * socket: unix sockets only, never a network one.
	 */
	SB_ARG(socket, SB_ALL, 0, 0xffffffffULL, AF_UNIX),
	SB(connect),		/* client-mode ports reconnecting */
	/* ctl "port add": a vhost-user server socket (port_vhost_listen(),
	 * usock_bind()).  Only unix sockets can exist to bind (socket()
	 * above), and nothing the running daemon creates is privileged.
	 */
	SB(bind),
	SB(listen),
	SB(umask),		/* usock_bind(): the socket's mode= */
	SB(chmod),		/* the same, under a default ACL */
	SB(fchmodat),		/* the same, where libc uses it */
	SB(fchownat),		/* owner=/group= (no CAP_CHOWN: own ids) */
	SB(getsockopt),		/* SO_PEERCRED/SO_PEERGROUPS, SO_ERROR */
	SB(setsockopt),		/* vu_dev.c: SO_RCVTIMEO/SO_SNDTIMEO;
				 * libmicrohttpd: TCP_NODELAY on
				 * accepted connections (metrics.c) */
	/* ---- event loops ---- */
	SB(epoll_wait),		/* control thread, workers, HTTP thread */
	SB(epoll_pwait),	/* the same, where libc uses it */
	SB(epoll_pwait2),	/* workers: a timed source's deadline */
	SB(epoll_ctl),		/* fds coming and going */
	SB(poll),		/* ctl.c: one client's I/O with a timeout */
	SB(ppoll),		/* the same, where libc uses it */
	/* ---- file descriptors and files ---- */
	/* Eventfds non-blocking (F_GETFL/F_SETFL), memfd seals. */
	SB_ARG(fcntl, SB_ALL, 1, 0xffffffffULL, F_GETFL),
	SB_ARG(fcntl, SB_ALL, 1, 0xffffffffULL, F_SETFL),
	SB_ARG(fcntl, SB_ALL, 1, 0xffffffffULL, F_GETFD),
	SB_ARG(fcntl, SB_ALL, 1, 0xffffffffULL, F_SETFD),
	SB_ARG(fcntl, SB_ALL, 1, 0xffffffffULL, F_GET_SEALS),
	/* efd_signal_later(): the slow lane's own copy of a call fd. */
	SB_ARG(fcntl, SB_ALL, 1, 0xffffffffULL, F_DUPFD_CLOEXEC),
	SB(fstat),		/* guest memory: file type and size */
	SB(newfstatat),		/* the same (glibc's fstat), ctl_close()'s
				 * lstat of its socket file */
	SB(fstatfs),		/* guest memory: only tmpfs and hugetlbfs */
	SB(unlink),		/* socket files, at shutdown and port del */
	SB(mkdir),		/* port add: the socket's directory */
	SB(mkdirat),		/* the same, where libc uses it */
	SB(pwrite64),		/* state.c: the --state file, opened before */
	SB(pread64),		/* pollwin.c: /proc/pressure/cpu, the same */
	/* efd_check(): /proc/self/fd/N of a kick/call/err fd (sanitizer
	 * runtimes: /proc/self/exe).
	 */
	SB(readlink),
	SB(readlinkat),
	/* The running daemon opens no file (see the DOC above). */
	SB_ERR(open, SB_REL, EACCES),
	SB_ERR(openat, SB_REL, EACCES),
	/* ---- TAP ---- */
	SB_IOCTL(SIOCGIFMTU, SB_ALL),	/* tap_frame_max(), once a second */
	SB_IOCTL(TUNSETSTEERINGEBPF, SB_ALL), /* tap_steer_close() */
	/* tap_steer_sync(): the steering map follows the MAC table. */
	SB_ARG(bpf, SB_ALL, 0, 0xffffffffULL, BPF_MAP_UPDATE_ELEM),
	SB_ARG(bpf, SB_ALL, 0, 0xffffffffULL, BPF_MAP_DELETE_ELEM),
	/* ---- memory ---- */
	/* Guest memory regions, the zero page over a SIGBUS fault (MAP_FIXED),
	 * malloc, thread stacks: never executable.
	 */
	SB_ARG(mmap, SB_REL, 2, PROT_EXEC, 0),
	SB_ARG(mprotect, SB_REL, 2, PROT_EXEC, 0),	/* stack guards */
	SB(munmap),		/* guest memory regions, malloc */
	SB(mremap),		/* realloc() of large blocks (ctl replies) */
	SB(madvise),		/* malloc trimming, freed thread stacks */
	SB(brk),		/* malloc */
	/* ---- threads ---- */
	/* pthread_create(): threads of this process, never a new process
	 * or namespace.
	 */
	SB_ARG(clone, SB_REL, 0, CLONE_THREAD, CLONE_THREAD),
	SB_ERR(clone3, SB_ALL, ENOSYS),	/* glibc falls back to clone() */
	SB(set_robust_list),	/* every new thread (glibc) */
	SB(rseq),		/* every new thread (glibc 2.35+) */
	SB(futex),		/* locks, pthread_join() */
	SB(sched_yield),	/* spinning waits */
	/* A worker pins itself to its --cpus CPU (pid 0: the caller) and
	 * names itself; nothing else's affinity or name.
	 */
	SB_ARG(sched_setaffinity, SB_ALL, 0, 0xffffffffULL, 0),
	SB_ARG(prctl, SB_REL, 0, 0xffffffffULL, PR_SET_NAME),
	SB(exit),		/* a thread ends */
	SB(exit_group),		/* the process ends */
	/* ---- time ---- */
	SB(clock_gettime),	/* vDSO fallback */
	SB(gettimeofday),	/* vDSO fallback */
	SB(timerfd_settime),	/* ctl_capture.c: the drain timer on/off */
	SB(nanosleep),		/* tap_close(): a burst to drain */
	SB(clock_nanosleep),	/* the same, where libc uses it */
	/* ---- signals ---- */
	SB(rt_sigprocmask),	/* pthread_create(), abort() */
	SB(rt_sigaction),	/* abort(); SIGSYS back to default, below */
	SB(rt_sigreturn),	/* return from the SIGBUS handler */
	SB(restart_syscall),	/* a sleep interrupted by a stop signal */
	SB(getpid),		/* raise(), abort() */
	SB(gettid),		/* raise(), abort() */
	/* raise()/abort() (ASSERT, the SIGSYS below): to ourselves only. */
	SB_ARG(tgkill, SB_ALL, 0, 0xffffffffULL, SB_SELF),

	/* ---- sanitizer runtimes only (see the DOC above) ---- */
	SB_W(open, SB_SAN),		/* reports to log_path, /proc */
	SB_W(openat, SB_SAN),		/* the same */
	SB_W(getdents, SB_SAN),		/* LSan: /proc/self/task */
	SB_W(getdents64, SB_SAN),	/* the same, elsewhere */
	SB_W(lseek, SB_SAN),		/* reading /proc files */
	SB_W(mmap, SB_SAN),		/* the runtime's own mappings */
	SB_W(mprotect, SB_SAN),		/* the same */
	SB_W(clone, SB_SAN),		/* LSan's stop-the-world tracer */
	SB_W(ptrace, SB_SAN),		/* LSan: registers of every thread */
	SB_W(wait4, SB_SAN),		/* LSan: the tracer */
	SB_W(prctl, SB_SAN),		/* LSan: PR_SET_PTRACER, DEATHSIG */
	SB_W(getppid, SB_SAN),		/* LSan's tracer */
	SB_W(sigaltstack, SB_SAN),	/* the runtime's signal stacks */
	SB_W(sched_getaffinity, SB_SAN), /* CPU count */
	SB_W(prlimit64, SB_SAN),	/* stack size */
	SB_W(getrlimit, SB_SAN),	/* the same */
	SB_W(uname, SB_SAN),		/* kernel version checks */
	SB_W(pipe2, SB_SAN),		/* a symbolizer restarted */
	SB_W(dup2, SB_SAN),		/* the same */
	SB_W(dup3, SB_SAN),		/* the same */
	SB_W(execve, SB_SAN),		/* the same */
	SB_W(kill, SB_SAN),		/* the same, stopped */
	SB_IOCTL(TCGETS, SB_SAN),	/* isatty(): coloured reports */
};

/* Names for the SIGSYS line, looked up before the filter exists. */
static const char *sandbox_names[SANDBOX_NR_MAX];

/**
 * sandbox_sanitizer() - whether a sanitizer runtime is linked in
 * Return: true in ASan, UBSan, TSan, MSan or LSan builds
 */
bool sandbox_sanitizer(void)
{
	return __sanitizer_print_stack_trace != NULL;
}

/**
 * sandbox_put() - append a string to a line under construction
 * @p:		cursor
 * @end:	end of the buffer
 * @s:		string
 */
static void sandbox_put(char **p, const char *end, const char *s)
{
	while (*s && *p < end)
		*(*p)++ = *s++;
}

/**
 * sandbox_put_num() - append a number, async-signal-safe
 * @p:		cursor
 * @end:	end of the buffer
 * @v:		value
 * @hex:	"0x..." rather than decimal
 */
static void sandbox_put_num(char **p, const char *end, unsigned long v,
			    bool hex)
{
	char tmp[24], *t = tmp + sizeof(tmp);
	unsigned int base = hex ? 16 : 10;

	*--t = '\0';
	do {
		*--t = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (hex)
		sandbox_put(p, end, "0x");
	sandbox_put(p, end, t);
}

/**
 * sandbox_on_sigsys() - a syscall not on the list: say which, and die
 * @sig:	SIGSYS
 * @si:		si_syscall: the number
 * @ucv:	the registers at the call (its arguments)
 *
 * Context: any thread, signal handler: write(), sigaction() and tgkill()
 * only.  SIGSYS is blocked while we run: the one raised here is taken,
 * with its default action (terminate), the moment we return.  A call
 * trapped while the thread blocks SIGSYS (inside pthread_create(), which
 * blocks every signal around clone()) never gets here: the kernel then
 * kills the process with SIGSYS at once, without this line.
 */
static void sandbox_on_sigsys(int sig, siginfo_t *si, void *ucv)
{
	char line[256], *p = line, *end = line + sizeof(line) - 1;
	uint64_t t = now_ns();	/* log.c's prefix, by hand */
	int nr = si->si_syscall;
	struct sigaction dfl;

	unsigned int ms = (unsigned int)(t / 1000000ULL % 1000ULL);
	const char msd[5] = { '.', (char)('0' + ms / 100),
			      (char)('0' + ms / 10 % 10), (char)('0' + ms % 10),
			      '\0' };

	sandbox_put(&p, end, "vhostd[");
	sandbox_put_num(&p, end, (unsigned long)(t / 1000000000ULL), false);
	sandbox_put(&p, end, msd);
	sandbox_put(&p, end, "] error: seccomp: syscall ");
	sandbox_put(&p, end, nr >= 0 && nr < SANDBOX_NR_MAX &&
		    sandbox_names[nr] ? sandbox_names[nr] : "?");
	sandbox_put(&p, end, " (");
	sandbox_put_num(&p, end, (unsigned long)nr, false);
	sandbox_put(&p, end, ")");
#if defined(__x86_64__)
	{
		const ucontext_t *uc = ucv;

		sandbox_put(&p, end, " args ");
		sandbox_put_num(&p, end, uc->uc_mcontext.gregs[REG_RDI], true);
		sandbox_put(&p, end, " ");
		sandbox_put_num(&p, end, uc->uc_mcontext.gregs[REG_RSI], true);
		sandbox_put(&p, end, " ");
		sandbox_put_num(&p, end, uc->uc_mcontext.gregs[REG_RDX], true);
	}
#endif
	sandbox_put(&p, end, " is not on the allow-list (src/sandbox.c): "
		    "killed by SIGSYS\n");
	if (write(STDERR_FILENO, line, (size_t)(p - line)) < 0)
		p = line;	/* nowhere left to say it */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGSYS, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGSYS);
}

/**
 * sandbox_add() - one entry into the filter
 * @ctx:	libseccomp context
 * @r:		entry
 * @pid:	our pid, for SB_SELF
 * Return: 0 or -errno
 */
static int sandbox_add(scmp_filter_ctx ctx, const struct sandbox_rule *r,
		       pid_t pid)
{
	uint32_t act = r->err ? SCMP_ACT_ERRNO((uint32_t)r->err) :
				SCMP_ACT_ALLOW;
	struct scmp_arg_cmp cmp;

	if (r->arg < 0)
		return seccomp_rule_add(ctx, act, r->nr, 0);
	cmp.arg = (unsigned int)r->arg;
	cmp.op = SCMP_CMP_MASKED_EQ;
	cmp.datum_a = r->mask;
	cmp.datum_b = r->val == SB_SELF ? (uint64_t)pid : r->val;
	return seccomp_rule_add_array(ctx, act, r->nr, 1, &cmp);
}

/**
 * sandbox_install() - load the allow-list for the whole process
 *
 * Context: end of start-up, control thread, after priv_drop() (which set
 * no_new_privs: an unprivileged process may then load a filter).
 * Return: 0 or -errno (nothing loaded)
 */
int sandbox_install(void)
{
	bool san = sandbox_sanitizer();
	pid_t pid = getpid();
	struct sigaction sa;
	scmp_filter_ctx ctx;
	unsigned int i;
	int rc;

	/* Start the symbolizer now, while it can still be exec'd unfiltered:
	 * a report later talks to that process over its pipes.
	 */
	if (san && __sanitizer_symbolize_pc) {
		char buf[128];

		__sanitizer_symbolize_pc(__builtin_return_address(0), "%F",
					 buf, sizeof(buf));
	}
	for (i = 0; i < SANDBOX_NR_MAX; i++)
		if (!sandbox_names[i])	/* kept for the process' life */
			sandbox_names[i] = seccomp_syscall_resolve_num_arch(
				SCMP_ARCH_NATIVE, (int)i);

	ctx = seccomp_init(SCMP_ACT_TRAP);
	if (!ctx)
		return -ENOMEM;
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
			      SCMP_ACT_KILL_PROCESS);
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	/* A binary tree over syscall numbers: every call pays a few
	 * compares, not a walk down the whole list.
	 */
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	for (i = 0; !rc && i < ARRAY_SIZE(sandbox_rules); i++) {
		const struct sandbox_rule *r = &sandbox_rules[i];

		if ((r->when == SB_SAN && !san) || (r->when == SB_REL && san))
			continue;
		rc = sandbox_add(ctx, r, pid);
		if (rc)
			err("seccomp: entry %u (syscall %d) refused: %s", i,
			    r->nr, strerror(-rc));
	}
	if (!rc) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = sandbox_on_sigsys;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		rc = sigaction(SIGSYS, &sa, NULL) ? -errno : 0;
	}
	if (!rc)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (!rc)
		info("seccomp: %s allow-list installed",
		     san ? "sanitizer build" : "release build");
	return rc;
}
