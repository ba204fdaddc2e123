// SPDX-License-Identifier: GPL-2.0
/*
 * Minimal /init for the pagestat guest: mount the pseudo filesystems,
 * run the program named on the kernel command line (after "--") with its
 * output on the second serial port, report its exit status there, and
 * reboot (qemu runs with -no-reboot, so the reboot ends the run).
 *
 * Several programs, separated by ";" arguments, run one after the other in
 * one boot, each announced with "pagestat-run: <program>".
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static void raw_tty(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		return;
	cfmakeraw(&t);
	tcsetattr(fd, TCSANOW, &t);
}

/* Run argv[0] with its arguments; its wait() status. */
static int run(char **argv)
{
	int status = 127 << 8;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0)
		;
	return status;
}

static void report(int status)
{
	if (WIFEXITED(status))
		printf("pagestat-exit: %d\n", WEXITSTATUS(status));
	else
		printf("pagestat-exit: signal %d\n", WTERMSIG(status));
}

int main(int argc, char **argv)
{
	int fd, i, first;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	mkdir("/dev/hugepages", 0755);
	mount("hugetlbfs", "/dev/hugepages", "hugetlbfs", 0, NULL);

	/* Program output goes to ttyS1, apart from the kernel console. */
	fd = open("/dev/ttyS1", O_WRONLY | O_NOCTTY);
	if (fd >= 0) {
		raw_tty(fd);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	setvbuf(stdout, NULL, _IONBF, 0);

	if (argc < 2) {
		printf("pagestat-init: no program given\n");
		report(127 << 8);
	}
	for (first = 1; first < argc; first = i + 1) {
		for (i = first; i < argc && strcmp(argv[i], ";"); i++)
			;
		argv[i] = NULL;
		if (i == first)
			continue;
		if (first > 1 || i < argc)
			printf("pagestat-run: %s\n", argv[first]);
		report(run(argv + first));
	}
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
