/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: ch4 netmod "ftdev".
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"

MPIDI_FTDEV_global_t MPIDI_FTDEV_global;
