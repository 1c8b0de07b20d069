#ifndef PUSHDIAG_CPCAP_SHIM_H
#define PUSHDIAG_CPCAP_SHIM_H
#include <pcap/pcap.h>
#include <stdio.h>
#include <sys/stat.h>

/* Link types pushdiag reads, from the system's <pcap/dlt.h> (macros do not import into Swift). */
static inline int CPcap_DLT_IEEE802_11(void) { return DLT_IEEE802_11; }
static inline int CPcap_DLT_IEEE802_11_RADIO(void) { return DLT_IEEE802_11_RADIO; }
static inline int CPcap_DLT_PPI(void) { return DLT_PPI; }
static inline int CPcap_DLT_PRISM_HEADER(void) { return DLT_PRISM_HEADER; }
static inline int CPcap_DLT_IEEE802_11_RADIO_AVS(void) { return DLT_IEEE802_11_RADIO_AVS; }
static inline int CPcap_DLT_NETLINK(void) { return DLT_NETLINK; }
static inline int CPcap_DLT_EN10MB(void) { return DLT_EN10MB; }
static inline int CPcap_ERRBUF_SIZE(void) { return PCAP_ERRBUF_SIZE; }
static inline int CPcap_ERROR_BREAK(void) { return PCAP_ERROR_BREAK; }
static inline unsigned CPcap_TSTAMP_PRECISION_NANO(void) { return PCAP_TSTAMP_PRECISION_NANO; }
static inline int CPcap_ERROR_PERM_DENIED(void) { return PCAP_ERROR_PERM_DENIED; }
static inline int CPcap_ERROR_NO_SUCH_DEVICE(void) { return PCAP_ERROR_NO_SUCH_DEVICE; }
static inline int CPcap_ERROR_IFACE_NOT_UP(void) { return PCAP_ERROR_IFACE_NOT_UP; }
#endif
