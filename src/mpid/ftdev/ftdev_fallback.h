/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Collectives run MPICH's own algorithms (MPIR_*_impl) over ftdev's
 * point-to-point; MPICH's generic layer supplies RMA (ftdev_rma.h) and
 * partitioned communication over ftdev's active messages.
 */

#ifndef FTDEV_FALLBACK_H_INCLUDED
#define FTDEV_FALLBACK_H_INCLUDED

#include "netmod_am_fallback_coll.h"
#include "ftdev_rma.h"
#include "netmod_am_fallback_part.h"

#endif /* FTDEV_FALLBACK_H_INCLUDED */
