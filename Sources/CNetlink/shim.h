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
#endif
