/*
 * The connect mark's workload (bench/connect-mark.bench.ts): listens on 127.0.0.1:PORT and connects
 * to it COUNT times (connect, accept, close both), then prints the nanoseconds a connect took on
 * average. Every connect on the host runs the mark's cgroup/connect4 program.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: connect-loop PORT COUNT\n");
		return 2;
	}
	struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1]))};
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	long count = atol(argv[2]);
	int listener = socket(AF_INET, SOCK_STREAM, 0);
	int on = 1;
	setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(listener, (struct sockaddr *)&address, sizeof(address)) != 0 || listen(listener, 64) != 0) {
		perror("connect-loop: listen");
		return 1;
	}
	struct timespec start, end;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long i = 0; i < count; i++) {
		int client = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(client, (struct sockaddr *)&address, sizeof(address)) != 0) {
			perror("connect-loop: connect");
			return 1;
		}
		int accepted = accept(listener, NULL, NULL);
		/* the client closes first: its side keeps TIME_WAIT, on its own ephemeral port */
		close(client);
		close(accepted);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	double ns = (end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec);
	printf("%.1f\n", ns / count);
	return 0;
}
