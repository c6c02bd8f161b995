/* Information-set MCTS of the mcts bot (bots/mcts.py: PySearch is the same in Python). */
#ifndef ARENA_SEARCH_H
#define ARENA_SEARCH_H

#include "engine.h"

typedef struct {
    int move, seat, visits, avail;
    double reward;
    int first, last, next, n_children;
} Node;

typedef struct {
    Rules rules;
    Core base;                      /* the seat's view: boards, captures, turn; its own racks */
    int own[N_COLORS];              /* the rack of this color is known */
    uint8_t unplayed[N_COLORS][N_TILES];
    int n_unplayed[N_COLORS];
    int rack_size[N_COLORS];
    Node *nodes;                    /* nodes[0] is the root */
    int n_nodes, cap;
    int *ids;                       /* scratch: the children considered */
    int ids_cap;
    double exploration, widening;
    /* The root considers its first root_width moves: root_base at first, growing as
     * root_base * sqrt(done / widen_root) once more iterations are done (0: never). */
    int root_width, root_base;
    long widen_root;
    int greedy;
    uint64_t rng;
    long done;
} Search;

/* The root's width after `done` iterations, from `width` (the width so far, as it only grows). */
int root_width(int width, int base, long widen_root, long done, int n_moves);
/* Set up the tree over the root moves; 0, or -1 when out of memory. */
int search_start(Search *t, const int *moves, int n_moves);
/* Run n more iterations; 0, or -1 when out of memory. */
int search_run(Search *t, long n);
void search_free(Search *t);
/* A determinization of the view (the sampler of arena/rules/playout.py: sample). */
void search_sample(Search *t, Core *s);

#endif
