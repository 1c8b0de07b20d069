#ifndef PUSHDIAG_CDBUS_SHIM_H
#define PUSHDIAG_CDBUS_SHIM_H
/* libdbus, for asking NetworkManager or iwd over the system bus to drop and restore a
 * Wi-Fi association (pushdiag join). Only blocking calls and pending replies are used. */
#include <dbus/dbus.h>
#endif
