/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/*
 * The repaired binomial tree every FT protocol gathers and spreads over.
 *
 * Positions 0..n-1 count from the tree's root (position 0); a caller maps
 * them to ranks or process ids, usually as (root + v) mod n. Position v's
 * subtree is [v, v + lowbit(v)), cut at n; the root's is all of [0, n).
 * The children of v are v + 1, v + 2, v + 4, ... inside that subtree, and
 * a child's own subtree ends where the next child's begins.
 *
 * Repair: a position whose parent failed reports to its nearest ancestor
 * that is alive, found by clearing v's low bits one at a time; the root
 * is the last ancestor and is returned whether it is alive or not (the
 * caller decides what a dead root means, usually a new coordinator).
 * Because every ancestor of v lies below v and every position of v's
 * subtree above it, a repaired tree still covers each live position
 * exactly once.
 */
#ifndef MPID_FT_TREE_H_INCLUDED
#define MPID_FT_TREE_H_INCLUDED

/* Whether the process at position pos of the caller's tree is alive. */
typedef int (*MPID_FT_tree_alive_fn) (int pos, void *arg);

/* Position of member r in a tree of n rooted at member root, and back. */
static inline int MPID_FT_tree_position(int r, int root, int n)
{
    return (r - root + n) % n;
}

static inline int MPID_FT_tree_member(int v, int root, int n)
{
    return (v + root) % n;
}

/* One past the last position of v's subtree. */
static inline int MPID_FT_tree_subtree_end(int v, int n)
{
    if (v == 0)
        return n;
    int end = v + (v & -v);
    return end < n ? end : n;
}

/* v's nearest live ancestor, the root (0) at last; the root's is itself. */
static inline int MPID_FT_tree_parent(int v, MPID_FT_tree_alive_fn alive, void *arg)
{
    int a = v & (v - 1);
    while (a != 0 && !alive(a, arg))
        a &= a - 1;
    return a;
}

/* v's first child, or -1 when it has none. */
static inline int MPID_FT_tree_first_child(int v, int n)
{
    return v + 1 < MPID_FT_tree_subtree_end(v, n) ? v + 1 : -1;
}

/* The child of v after child c, or -1 after the last. */
static inline int MPID_FT_tree_next_child(int v, int c, int n)
{
    int next = v + 2 * (c - v);
    return next < MPID_FT_tree_subtree_end(v, n) ? next : -1;
}

/* Whether live position u reports to v in the repaired tree. */
static inline int MPID_FT_tree_is_child(int v, int u, int n, MPID_FT_tree_alive_fn alive,
                                        void *arg)
{
    return u > v && u < MPID_FT_tree_subtree_end(v, n) && alive(u, arg) &&
        MPID_FT_tree_parent(u, alive, arg) == v;
}

#endif /* MPID_FT_TREE_H_INCLUDED */
