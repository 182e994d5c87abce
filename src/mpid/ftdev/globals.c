/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The netmod's global state, MPIDI_FTDEV_global (ftdev_types.h).
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"

/* ABORT's policy until the layers above hand theirs down (mpid_ft.h) */
MPIDI_FTDEV_global_t MPIDI_FTDEV_global = {
    .upper.policy = {.aborts_on_failure = 1,.halts_on_failure = 1 },
};
