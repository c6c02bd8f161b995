/* The mcts bot's search, draw for draw and float for float the Python search in
 * bots/mcts.py, so that a seed and an iteration count choose the same move either way. */
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATH 1024

static int new_node(Search *t, int parent, int move, int seat) {
    if (t->n_nodes == t->cap) {
        int cap = t->cap ? 2 * t->cap : 1024;
        Node *nodes = realloc(t->nodes, (size_t)cap * sizeof(Node));
        if (!nodes) return -1;
        t->nodes = nodes;
        t->cap = cap;
    }
    int id = t->n_nodes++;
    Node *n = &t->nodes[id];
    n->move = move;
    n->seat = seat;
    n->visits = 0;
    n->reward = 0.0;
    n->avail = 1;
    n->first = n->last = n->next = -1;
    n->n_children = 0;
    if (parent >= 0) {
        Node *p = &t->nodes[parent];
        if (p->last < 0)
            p->first = id;
        else
            t->nodes[p->last].next = id;
        p->last = id;
        p->n_children++;
    }
    return id;
}

int search_start(Search *t, const int *moves, int n_moves) {
    t->nodes = NULL;
    t->ids = NULL;
    t->n_nodes = t->cap = t->ids_cap = 0;
    t->done = 0;
    if (new_node(t, -1, PASS_CODE, -1) < 0) return -1;
    int me = t->base.to_move;
    for (int i = 0; i < n_moves; i++)
        if (new_node(t, 0, moves[i], me) < 0) return -1;
    for (int i = 0; i < t->rules.n_colors; i++) core_capturable(&t->base, t->rules.colors[i]);
    return 0;
}

void search_free(Search *t) {
    free(t->nodes);
    free(t->ids);
    t->nodes = NULL;
    t->ids = NULL;
}

int root_width(int width, int base, long widen_root, long done, int n_moves) {
    /* The largest k with k * k * widen_root <= base * base * done, in integers: the same in Python. */
    while (widen_root > 0 && width < n_moves &&
           (long long)(width + 1) * (width + 1) * widen_root <= (long long)base * base * done)
        width++;
    return width;
}

static void shuffle(uint8_t *tiles, int n, uint64_t *rng) {
    for (int i = n - 1; i > 0; i--) {
        int j = sm_below(rng, i + 1);
        uint8_t x = tiles[i];
        tiles[i] = tiles[j];
        tiles[j] = x;
    }
}

void search_sample(Search *t, Core *s) {
    memcpy(s, &t->base, sizeof *s);
    for (int i = 0; i < t->rules.n_colors; i++) {
        int c = t->rules.colors[i];
        int played = s->played[c];
        uint8_t pool[N_TILES];
        int n = 0, size;
        if (t->own[c]) {
            size = s->rack_len[c];
            for (int k = 0; k < t->n_unplayed[c]; k++)
                if (!memchr(s->rack[c], t->unplayed[c][k], (size_t)size)) pool[n++] = t->unplayed[c][k];
            shuffle(pool, n, &t->rng);
            memcpy(s->deals[c] + played, s->rack[c], (size_t)size);
            memcpy(s->deals[c] + played + size, pool, (size_t)n);
        } else {
            n = t->n_unplayed[c];
            memcpy(pool, t->unplayed[c], (size_t)n);
            shuffle(pool, n, &t->rng);
            size = t->rack_size[c] < n ? t->rack_size[c] : n;
            memcpy(s->rack[c], pool, (size_t)size);
            s->rack_len[c] = (uint8_t)size;
            memcpy(s->deals[c] + played, pool, (size_t)n);
        }
        memcpy(s->deals[c], s->played_tiles[c], (size_t)played);
        s->drawn[c] = (uint8_t)(played + size);
    }
}

static int ucb(Search *t, const int *ids, int n, double c) {
    int best = ids[0];
    double best_score = -INFINITY;
    for (int i = 0; i < n; i++) {
        Node *child = &t->nodes[ids[i]];
        if (!child->visits) return ids[i];
        double score = child->reward / child->visits + c * sqrt(log((double)child->avail) / child->visits);
        if (score > best_score) {
            best_score = score;
            best = ids[i];
        }
    }
    return best;
}

static int is_legal(const Moves *m, int move) {
    int color = CODE_COLOR(move), tile = CODE_TILE(move);
    for (int i = 0; i < m->n; i++)
        if (m->opt[i].tile == tile && m->opt[i].color == color) return (int)(m->opt[i].cells >> CODE_CELL(move) & 1);
    return 0;
}

static void push_code(const Rules *r, Core *s, int move) {
    core_push(r, s, CODE_COLOR(move), CODE_TILE(move), CODE_CELL(move));
}

/* Room for the children of the node with the most (every node's count fits). */
static int *room(Search *t, int n) {
    if (n > t->ids_cap) {
        int cap = n > 2 * t->ids_cap ? n : 2 * t->ids_cap;
        int *ids = realloc(t->ids, (size_t)cap * sizeof(int));
        if (!ids) return NULL;
        t->ids = ids;
        t->ids_cap = cap;
    }
    return t->ids;
}

static int iterate(Search *t) {
    const Rules *r = &t->rules;
    Core s;
    int path[MAX_PATH], n_path = 0;
    int *ids = room(t, t->nodes[0].n_children);
    if (!ids) return -1;
    search_sample(t, &s);
    Node *root = &t->nodes[0];
    t->root_width = root_width(t->root_width, t->root_base, t->widen_root, t->done, root->n_children);
    int n_root = 0;
    for (int id = root->first; id >= 0 && n_root < t->root_width; id = t->nodes[id].next) {
        t->nodes[id].avail++;
        ids[n_root++] = id;
    }
    int node = ucb(t, ids, n_root, t->exploration);
    push_code(r, &s, t->nodes[node].move);
    path[n_path++] = node;
    while (!s.over) {
        int move = policy_greedy(r, &s, &t->rng);
        if (move == PASS_CODE) {
            core_pass(r, &s);
            continue;
        }
        Node *parent = &t->nodes[node];
        int child = -1;
        for (int id = parent->first; id >= 0; id = t->nodes[id].next)
            if (t->nodes[id].move == move) {
                child = id;
                break;
            }
        if (child < 0 && parent->n_children < 1 + t->widening * sqrt((double)parent->visits)) {
            child = new_node(t, node, move, s.to_move);
            if (child < 0) return -1;
            push_code(r, &s, move);
            path[n_path++] = child;
            break;
        }
        Moves m;
        core_legal(r, &s, &m);
        ids = room(t, t->nodes[node].n_children);
        if (!ids) return -1;
        int n = 0;
        for (int id = t->nodes[node].first; id >= 0; id = t->nodes[id].next)
            if (is_legal(&m, t->nodes[id].move)) ids[n++] = id;
        if (!n) {
            child = new_node(t, node, move, s.to_move);
            if (child < 0) return -1;
            push_code(r, &s, move);
            path[n_path++] = child;
            break;
        }
        for (int i = 0; i < n; i++) t->nodes[ids[i]].avail++;
        node = ucb(t, ids, n, t->exploration);
        push_code(r, &s, t->nodes[node].move);
        if (n_path < MAX_PATH) path[n_path++] = node;
    }
    if (!s.over) core_playout(r, &s, t->greedy, &t->rng);
    double rewards[N_COLORS];
    core_rewards(r, &s, rewards);
    for (int i = 0; i < n_path; i++) {
        Node *n = &t->nodes[path[i]];
        n->visits++;
        n->reward += rewards[n->seat];
    }
    t->done++;
    return 0;
}

int search_run(Search *t, long n) {
    for (long i = 0; i < n; i++)
        if (iterate(t) < 0) return -1;
    return 0;
}
