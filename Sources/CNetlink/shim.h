#ifndef PUSHDIAG_CNETLINK_SHIM_H
#define PUSHDIAG_CNETLINK_SHIM_H
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>
#include <linux/nl80211.h>
#include <linux/rtnetlink.h>
#include <linux/if_arp.h>
#include <linux/if_link.h>
#include <poll.h>
#include <errno.h>
#include <stdlib.h>

/* Constants that are macros in the kernel headers, as functions Swift can call. */
static inline int CNetlink_NETLINK_GENERIC(void) { return NETLINK_GENERIC; }
static inline int CNetlink_NETLINK_ROUTE(void) { return NETLINK_ROUTE; }
static inline int CNetlink_NLMSG_ERROR(void) { return NLMSG_ERROR; }
static inline int CNetlink_NLMSG_DONE(void) { return NLMSG_DONE; }
static inline int CNetlink_NLM_F_REQUEST(void) { return NLM_F_REQUEST; }
static inline int CNetlink_NLM_F_MULTI(void) { return NLM_F_MULTI; }
static inline int CNetlink_NLM_F_ACK(void) { return NLM_F_ACK; }
static inline int CNetlink_NLM_F_DUMP(void) { return NLM_F_DUMP; }
static inline int CNetlink_GENL_ID_CTRL(void) { return GENL_ID_CTRL; }
static inline int CNetlink_ARPHRD_NETLINK(void) { return ARPHRD_NETLINK; }
static inline int CNetlink_NLA_TYPE_MASK(void) { return NLA_TYPE_MASK; }
static inline int CNetlink_POLLIN(void) { return POLLIN; }
static inline int CNetlink_errno(void) { return errno; }

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <string.h>
#include <unistd.h>

/* ethtool -i: the driver's name, version, firmware version and bus address of an interface
   (SIOCETHTOOL, ETHTOOL_GDRVINFO; no privilege needed). Each buffer takes 32 bytes, NUL-ended.
   0, or -errno. */
static inline int CNetlink_drvinfo(const char *ifname, char *driver, char *version, char *firmware, char *bus) {
    struct ethtool_drvinfo info;
    /* struct ifreq without its header (<net/if.h> and <linux/if.h> clash with Glibc's module):
       the name in 16 bytes, then the union whose ifr_data points at the request. */
    union { char bytes[40]; void *align; } ifr;
    void *data = &info;
    memset(&info, 0, sizeof info);
    memset(&ifr, 0, sizeof ifr);
    info.cmd = ETHTOOL_GDRVINFO;
    strncpy(ifr.bytes, ifname, 15);
    memcpy(ifr.bytes + 16, &data, sizeof data);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    int r = ioctl(fd, SIOCETHTOOL, &ifr);
    int e = errno;
    close(fd);
    if (r < 0) return -e;
    memcpy(driver, info.driver, 32); driver[31] = 0;
    memcpy(version, info.version, 32); version[31] = 0;
    memcpy(firmware, info.fw_version, 32); firmware[31] = 0;
    memcpy(bus, info.bus_info, 32); bus[31] = 0;
    return 0;
}
#endif
