// The sensor benchmark's workload (bench/sensor.bench.ts compiles it with cc): WORKERS processes,
// each doing ROUNDS rounds of one exec of /bin/true, OPENS opens of DIR/workload-file and one TCP
// connect to 127.0.0.1:PORT (nothing listens: refused). Prints what they did, by their own count,
// and the wall time of the whole, as JSON.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct counts {
	long execs, opens, connects;
};

static struct counts work(long rounds, long opens_per_round, const char *path, const struct sockaddr_in *to)
{
	char *child_argv[] = {"/bin/true", NULL};
	long execs = 0, opens = 0, connects = 0;
	for (long round = 0; round < rounds; round++) {
		pid_t child;
		if (posix_spawn(&child, "/bin/true", NULL, NULL, child_argv, environ) == 0) {
			waitpid(child, NULL, 0);
			execs++;
		}
		for (long i = 0; i < opens_per_round; i++) {
			int fd = open(path, O_RDONLY | O_CREAT, 0600);
			if (fd >= 0) {
				close(fd);
				opens++;
			}
		}
		int sock = socket(AF_INET, SOCK_STREAM, 0);
		if (sock >= 0) {
			connect(sock, (const struct sockaddr *)to, sizeof(*to));
			close(sock);
			connects++;
		}
	}
	return (struct counts){execs, opens, connects};
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: sensor-workload WORKERS ROUNDS OPENS DIR PORT\n");
		return 2;
	}
	long workers = atol(argv[1]), rounds = atol(argv[2]), opens_per_round = atol(argv[3]);
	char path[4096];
	snprintf(path, sizeof(path), "%s/workload-file", argv[4]);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[5]))};
	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	int results[2];
	if (pipe(results) != 0)
		return 1;
	struct timespec start, end;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long worker = 0; worker < workers; worker++) {
		if (fork() == 0) {
			struct counts done = work(rounds, opens_per_round, path, &to);
			if (write(results[1], &done, sizeof(done)) != sizeof(done))
				_exit(1);
			_exit(0);
		}
	}
	long execs = 0, opens = 0, connects = 0;
	for (long worker = 0; worker < workers; worker++) {
		struct counts done;
		if (read(results[0], &done, sizeof(done)) == sizeof(done)) {
			execs += done.execs;
			opens += done.opens;
			connects += done.connects;
		}
		wait(NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
	printf("{\"execs\":%ld,\"opens\":%ld,\"connects\":%ld,\"seconds\":%.6f}\n", execs, opens, connects, seconds);
	return 0;
}
