/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Checkpoint/restart through files, the way an application survives a
 * failure without a fault-tolerant MPI: the job dies with the process, and
 * is started again from the last checkpoint every process wrote.
 *
 * Used by the examples when RESTART_FILE=PREFIX is set (bench/run-appcost.sh
 * compares it with recovering in place). Each process writes its
 * registered buffers to PREFIX.RANK.0 and PREFIX.RANK.1 in turn (written
 * to a temporary name, synced, then renamed, so a file is either whole or
 * absent); at start-up the processes agree on the newest step that all of
 * them have and read it back. Processes must checkpoint at the same steps,
 * never more than one checkpoint apart (true of any application with a
 * collective between checkpoints). */
#ifndef RESTART_FILE_H_INCLUDED
#define RESTART_FILE_H_INCLUDED

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RESTART_FILE_MAX_BUFS 8
#define RESTART_FILE_MAGIC 0x46544d52u

typedef struct {
    const char *prefix;         /* NULL: no file checkpoints */
    int rank, nbufs;
    void *buf[RESTART_FILE_MAX_BUFS];
    size_t len[RESTART_FILE_MAX_BUFS];
    long written;
    long every;                 /* RESTART_FILE_EVERY, for applications without their own */
} restart_file_t;

static void restart_file_init(restart_file_t * f, int rank)
{
    const char *prefix = getenv("RESTART_FILE");
    memset(f, 0, sizeof(*f));
    f->prefix = prefix && *prefix ? prefix : NULL;
    f->rank = rank;
    const char *every = getenv("RESTART_FILE_EVERY");
    f->every = every && atol(every) > 0 ? atol(every) : 10;
}

static void restart_file_add(restart_file_t * f, void *buf, size_t len)
{
    if (f->nbufs == RESTART_FILE_MAX_BUFS) {
        fprintf(stderr, "restart_file: more than %d buffers\n", RESTART_FILE_MAX_BUFS);
        exit(2);
    }
    f->buf[f->nbufs] = buf;
    f->len[f->nbufs++] = len;
}

static void restart_file_name(const restart_file_t * f, int gen, char *name, size_t size)
{
    snprintf(name, size, "%s.%d.%d", f->prefix, f->rank, gen);
}

/* Writes the buffers as the checkpoint of `step`; exits on an I/O error. */
static void restart_file_write(restart_file_t * f, long step)
{
    char name[4096], tmp[4200];
    unsigned magic = RESTART_FILE_MAGIC;
    int ok;

    if (!f->prefix)
        return;
    restart_file_name(f, (int) (f->written++ % 2), name, sizeof(name));
    snprintf(tmp, sizeof(tmp), "%s.tmp", name);
    FILE *out = fopen(tmp, "wb");
    ok = out && fwrite(&magic, sizeof(magic), 1, out) == 1 &&
        fwrite(&step, sizeof(step), 1, out) == 1;
    for (int i = 0; ok && i < f->nbufs; i++)
        ok = fwrite(&f->len[i], sizeof(size_t), 1, out) == 1 &&
            (f->len[i] == 0 || fwrite(f->buf[i], f->len[i], 1, out) == 1);
    ok = ok && fflush(out) == 0 && fsync(fileno(out)) == 0;
    if (out)
        ok = fclose(out) == 0 && ok;
    if (!ok || rename(tmp, name) != 0) {
        fprintf(stderr, "restart_file: cannot write %s\n", name);
        exit(2);
    }
}

/* The step of generation `gen`'s file, or -1; with load, reads it in. */
static long restart_file_load(restart_file_t * f, int gen, int load)
{
    char name[4096];
    unsigned magic;
    long step = -1;
    size_t len;

    restart_file_name(f, gen, name, sizeof(name));
    FILE *in = fopen(name, "rb");
    if (!in)
        return -1;
    if (fread(&magic, sizeof(magic), 1, in) == 1 && magic == RESTART_FILE_MAGIC &&
        fread(&step, sizeof(step), 1, in) == 1 && load)
        for (int i = 0; i < f->nbufs && step >= 0; i++)
            if (fread(&len, sizeof(len), 1, in) != 1 || len != f->len[i] ||
                (len && fread(f->buf[i], len, 1, in) != 1))
                step = -1;
    fclose(in);
    return step;
}

/* Collective over comm: the step every process restored (the newest one
 * that all of them have), or -1 when there is none (a first start). */
static long restart_file_read(restart_file_t * f, MPI_Comm comm)
{
    long steps[2] = { -1, -1 }, newest, common, found;
    if (!f->prefix)
        return -1;
    for (int gen = 0; gen < 2; gen++)
        steps[gen] = restart_file_load(f, gen, 0);
    newest = steps[0] > steps[1] ? steps[0] : steps[1];
    MPI_Allreduce(&newest, &common, 1, MPI_LONG, MPI_MIN, comm);
    found = -1;
    for (int gen = 0; gen < 2 && common >= 0; gen++)
        if (steps[gen] == common && restart_file_load(f, gen, 1) == common) {
            found = common;
            /* the next checkpoint overwrites the other generation */
            f->written = gen + 1;
        }
    MPI_Allreduce(&found, &common, 1, MPI_LONG, MPI_MIN, comm);
    return common;
}

#endif /* RESTART_FILE_H_INCLUDED */
