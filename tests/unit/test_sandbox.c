// SPDX-License-Identifier: GPL-2.0-or-later
/* test_sandbox.c - the seccomp allow-list, loaded in forked children
 *
 *   test process (cmocka) --fork--> child: stderr -> pipe,
 *                                   sandbox_install(), then one action,
 *                                   _exit(errno or 0)
 *        <-- wait status, the child's stderr --
 *
 * What the running daemon does (unix sockets, threads, its I/O) must
 * pass; what it never does must end the child by SIGSYS with the log
 * line naming the syscall: a network socket, AF_PACKET, an unknown ioctl,
 * loading a BPF program, signalling another process, and, in release
 * builds, execve() and executable memory.  clone3() fails with ENOSYS and,
 * in release builds, open() with EACCES.  Threads that exist before the
 * filter is loaded get it too (TSYNC), threads made after inherit it.
 * Sanitizer builds allow what their runtime needs (sandbox.c), so the
 * release-only checks assert the sanitizer variant there instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <linux/if_tun.h>

#include "../../src/sandbox.h"

/**
 * child_run() - fork, load the filter in the child, run @fn there
 * @fn:		the action; returns the child's exit status
 * @out:	the child's stderr
 * @outlen:	size of @out
 * Return: the child's wait status
 */
static int child_run(int (*fn)(void), char *out, size_t outlen)
{
	size_t got = 0;
	int pfd[2], st;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		if (sandbox_install())
			_exit(100);
		_exit(fn());	/* _exit: no atexit handlers, no leak check */
	}
	close(pfd[1]);
	while (got + 1 < outlen &&
	       (n = read(pfd[0], out + got, outlen - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

/**
 * expect_sigsys() - @fn must die of SIGSYS, logging @name
 * @fn:		the action
 * @name:	what the log line must name, e.g. "socket ("
 */
static void expect_sigsys(int (*fn)(void), const char *name)
{
	char out[4096], want[128];
	int st = child_run(fn, out, sizeof(out));

	snprintf(want, sizeof(want), "seccomp: syscall %s", name);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSYS)
		fail_msg("child survived (status 0x%x), stderr: %s", st, out);
	if (!strstr(out, want))
		fail_msg("no '%s' line; stderr: %s", want, out);
}

/**
 * expect_exit() - @fn must exit with @code
 * @fn:		the action
 * @code:	its exit status
 */
static void expect_exit(int (*fn)(void), int code)
{
	char out[4096];
	int st = child_run(fn, out, sizeof(out));

	if (!WIFEXITED(st) || WEXITSTATUS(st) != code)
		fail_msg("status 0x%x, want exit %d; stderr: %s", st, code,
			 out);
}

static void *thread_nop(void *arg)
{
	return arg;
}

/* What the daemon does after start-up: all of it passes. */
static int act_daemon_like(void)
{
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct timespec ts;
	pthread_t t;
	char c = 'x';
	void *m;

	if (s < 0 || close(s))
		return 1;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) ||
	    write(STDERR_FILENO, &c, 1) != 1)
		return 3;
	m = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || munmap(m, 65536))
		return 4;
	/* pthread_create(): clone3 gets ENOSYS, clone(CLONE_THREAD) passes */
	if (pthread_create(&t, NULL, thread_nop, NULL) || pthread_join(t, NULL))
		return 5;
	return 0;
}

static int act_socket_inet(void)
{
	return socket(AF_INET, SOCK_STREAM, 0) < 0 ? 1 : 0;
}

static int act_socket_packet(void)
{
	return socket(AF_PACKET, SOCK_RAW, 0) < 0 ? 1 : 0;
}

static int act_ioctl_tunsetiff(void)
{
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);

	return ioctl(s, TUNSETIFF, NULL) < 0 ? 1 : 0;
}

static int act_bpf_prog_load(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	return syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof(a)) < 0 ? 1 : 0;
}

static int act_tgkill_init(void)
{
	return syscall(SYS_tgkill, 1, 1, 0) < 0 ? 1 : 0;
}

static int act_execve(void)
{
	char *const argv[] = { "true", NULL };

	execve("/bin/true", argv, NULL);
	return 1;
}

static int act_mmap_exec(void)
{
	void *m = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? 1 : 0;
}

static int act_open(void)
{
	int fd = open("/dev/null", O_RDONLY);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

static int act_clone3(void)
{
	char args[88] = { 0 };

	return syscall(SYS_clone3, args, sizeof(args)) < 0 ? errno : 0;
}

static void *thread_socket_inet(void *arg)
{
	socket(AF_INET, SOCK_DGRAM, 0);
	return arg;
}

static int act_thread_after(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread_socket_inet, NULL))
		return 1;
	pthread_join(t, NULL);
	return 0;
}

static void test_daemon_calls_pass(void **state)
{
	expect_exit(act_daemon_like, 0);
}

static void test_network_socket_killed(void **state)
{
	expect_sigsys(act_socket_inet, "socket (");
	expect_sigsys(act_socket_packet, "socket (");
}

static void test_other_ioctl_killed(void **state)
{
	expect_sigsys(act_ioctl_tunsetiff, "ioctl (");
}

static void test_bpf_prog_load_killed(void **state)
{
	expect_sigsys(act_bpf_prog_load, "bpf (");
}

static void test_signal_others_killed(void **state)
{
	expect_sigsys(act_tgkill_init, "tgkill (");
}

static void test_exec_and_exec_memory(void **state)
{
	if (sandbox_sanitizer()) {
		/* The runtime may restart its symbolizer: allowed there. */
		expect_exit(act_mmap_exec, 0);
		return;
	}
	expect_sigsys(act_execve, "execve (");
	expect_sigsys(act_mmap_exec, "mmap (");
}

static void test_errno_answers(void **state)
{
	expect_exit(act_clone3, ENOSYS);
	expect_exit(act_open, sandbox_sanitizer() ? 0 : EACCES);
}

static void test_threads_inherit(void **state)
{
	expect_sigsys(act_thread_after, "socket (");
}

/* A thread that exists before the filter is loaded gets it too. */
static int tsync_go;

static void *thread_wait_then_socket(void *arg)
{
	while (!__atomic_load_n(&tsync_go, __ATOMIC_ACQUIRE))
		usleep(1000);
	socket(AF_INET, SOCK_DGRAM, 0);
	return arg;
}

static void test_existing_threads_synced(void **state)
{
	char out[4096];
	int pfd[2], st;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		pthread_t t;

		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		if (pthread_create(&t, NULL, thread_wait_then_socket, NULL) ||
		    sandbox_install())
			_exit(100);
		__atomic_store_n(&tsync_go, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		_exit(0);
	}
	close(pfd[1]);
	while (got + 1 < sizeof(out) &&
	       (n = read(pfd[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSYS)
		fail_msg("status 0x%x; stderr: %s", st, out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_daemon_calls_pass),
		cmocka_unit_test(test_network_socket_killed),
		cmocka_unit_test(test_other_ioctl_killed),
		cmocka_unit_test(test_bpf_prog_load_killed),
		cmocka_unit_test(test_signal_others_killed),
		cmocka_unit_test(test_exec_and_exec_memory),
		cmocka_unit_test(test_errno_answers),
		cmocka_unit_test(test_threads_inherit),
		cmocka_unit_test(test_existing_threads_synced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
