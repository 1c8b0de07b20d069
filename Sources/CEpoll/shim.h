#ifndef PUSHDIAG_CEPOLL_SHIM_H
#define PUSHDIAG_CEPOLL_SHIM_H
/* epoll(7): Swift's Glibc module does not import <sys/epoll.h>, and struct epoll_event is packed
   on x86-64, so the calls are wrapped here with plain arguments: a descriptor in, a descriptor
   and its events out. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <stdint.h>
#include <errno.h>

static inline uint32_t CEpoll_IN(void) { return EPOLLIN; }
static inline uint32_t CEpoll_OUT(void) { return EPOLLOUT; }
static inline uint32_t CEpoll_ERR(void) { return EPOLLERR; }
static inline uint32_t CEpoll_HUP(void) { return EPOLLHUP; }
static inline uint32_t CEpoll_RDHUP(void) { return EPOLLRDHUP; }

static inline int CEpoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/* eventfd(2), the wakeup a thread or a signal handler gives a waiter: a counter that is readable
   while above zero. Non-blocking, so that a read never waits. */
static inline int CEpoll_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/* op: EPOLL_CTL_ADD (1), EPOLL_CTL_DEL (2), EPOLL_CTL_MOD (3). */
static inline int CEpoll_ctl(int epfd, int op, int fd, uint32_t events) {
    struct epoll_event ev;
    ev.events = events;
    ev.data.u64 = 0;
    ev.data.fd = fd;
    return epoll_ctl(epfd, op, fd, &ev);
}
static inline int CEpoll_CTL_ADD(void) { return EPOLL_CTL_ADD; }
static inline int CEpoll_CTL_DEL(void) { return EPOLL_CTL_DEL; }
static inline int CEpoll_CTL_MOD(void) { return EPOLL_CTL_MOD; }

/* Up to `max` ready descriptors into fds[] and their events into events[]; -1 with errno on
   failure. At most 1024 at once. */
static inline int CEpoll_wait(int epfd, int *fds, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event evs[1024];
    if (max > 1024) max = 1024;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        fds[i] = evs[i].data.fd;
        events[i] = evs[i].events;
    }
    return n;
}
#endif
