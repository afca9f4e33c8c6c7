/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtf-bare has no libc: the errno values src/shared/ uses, with Linux's numbers. */
#pragma once

#define EPERM 1
#define ENOENT 2
#define EINTR 4
#define EAGAIN 11
#define ENOMEM 12
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define EINVAL 22
#define ENOSPC 28
#define ERANGE 34
#define EDEADLK 35
#define ENOSYS 38
#define EOVERFLOW 75
#define ETIMEDOUT 110
