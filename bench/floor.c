/* The floor for `make bench`: a bare libpcap read loop that touches only each frame's
 * frame-control byte (after the radiotap header), counting Retry bits so nothing is optimised
 * away. pushdiag cannot read a file faster than this. */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdint.h>

int main(int argc, char **argv) {
    char errbuf[PCAP_ERRBUF_SIZE];
    if (argc != 2) { fprintf(stderr, "usage: floor FILE\n"); return 2; }
    pcap_t *p = pcap_open_offline(argv[1], errbuf);
    if (!p) { fprintf(stderr, "floor: %s\n", errbuf); return 1; }
    struct pcap_pkthdr *h;
    const u_char *d;
    unsigned long frames = 0, retries = 0;
    int rc;
    while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
        frames++;
        if (h->caplen >= 4) {
            unsigned len = d[2] | (d[3] << 8);
            if (len + 1 < h->caplen && (d[len + 1] & 0x08)) retries++;
        }
    }
    printf("%lu frames, %lu retries\n", frames, retries);
    pcap_close(p);
    return rc == PCAP_ERROR ? 1 : 0;
}
