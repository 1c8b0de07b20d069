#ifndef PUSHDIAG_CCRYPT_SHIM_H
#define PUSHDIAG_CCRYPT_SHIM_H
/* libxcrypt (Debian's libcrypt1): crypt_r(3), which checks the exporter's bcrypt hashes. */
#include <crypt.h>
#endif
