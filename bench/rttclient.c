/* The minimal client for `make bench`: SimplePush heartbeats back to back over one TCP connection
 * (4-byte little-endian length, JSON body), timing each request -> acknowledge with
 * CLOCK_MONOTONIC. Prints the median round trip in microseconds. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static int readn(int fd, unsigned char *b, size_t n) { size_t o = 0; while (o < n) { ssize_t r = read(fd, b + o, n - o); if (r <= 0) return -1; o += r; } return 0; }

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: rttclient ADDR PORT COUNT\n"); return 2; }
    int count = atoi(argv[3]);
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[2]))};
    inet_pton(AF_INET, argv[1], &sa.sin_addr);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) { perror("connect"); return 1; }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    double *rtt = calloc(count, sizeof *rtt);
    unsigned char buf[4096];
    for (int i = 0; i < count; i++) {
        char body[256];
        int n = snprintf(body, sizeof body, "{\"command\":\"request\",\"requestIdentifier\":%d,\"payload\":{\"codingKey\":4,\"data\":\"eyJjb3VudCI6MX0=\"}}", i + 1);
        unsigned char frame[300] = {n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >> 24};
        memcpy(frame + 4, body, n);
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        if (write(fd, frame, n + 4) != n + 4) return 1;
        if (readn(fd, buf, 4) < 0) return 1;
        unsigned len = buf[0] | buf[1] << 8 | buf[2] << 16 | (unsigned)buf[3] << 24;
        if (len > sizeof buf || readn(fd, buf, len) < 0) return 1;
        clock_gettime(CLOCK_MONOTONIC, &b);
        rtt[i] = (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3;
    }
    qsort(rtt, count, sizeof *rtt, cmp);
    printf("%.1f\n", count % 2 ? rtt[count / 2] : (rtt[count / 2 - 1] + rtt[count / 2]) / 2);
    return 0;
}
