/* The rules of Uptown / Blockers! in C: the same rules, the same order of moves and the
 * same memo as the reference engine in arena/rules/state.py, on 81-bit boards held in
 * unsigned 128-bit ints.  No Python here: module.c wraps it.  */
#ifndef ARENA_ENGINE_H
#define ARENA_ENGINE_H

#include <stdint.h>

typedef unsigned __int128 u128;

#define N_CELLS 81
#define N_TILES 28
#define N_COLORS 5
#define RACK_SIZE 5
#define TILES_PLAYED 24
#define WILD 27
#define MAX_OPTIONS 10 /* two colors of five rack tiles each */

/* What is fixed for a game (GameSettings). */
typedef struct {
    int players;
    int n_colors;
    int colors[N_COLORS];          /* every color in play, in seat order */
    int seat_colors[N_COLORS][2];
    int n_own[N_COLORS];           /* 1, or 2 with two players (T2) */
    int seat_of[N_COLORS];         /* -1 for a color not in play */
    int rivals[N_COLORS][N_COLORS];
    int n_rivals[N_COLORS];
    int blockers;                  /* scoring = "blockers" */
    int penalty_opponent;          /* penalty = "opponent" (C4) */
} Rules;

/* The whole game but its history (GameState). */
typedef struct {
    u128 boards[N_COLORS];
    u128 occupied;
    /* M3 memo: capturable[c] = capturable_mask(capturable_of[c]); NO_BOARD when not judged yet. */
    u128 capturable_of[N_COLORS];
    u128 capturable[N_COLORS];
    uint8_t deals[N_COLORS][N_TILES];
    uint8_t played_tiles[N_COLORS][N_TILES];
    uint8_t drawn[N_COLORS];
    uint8_t rack[N_COLORS][RACK_SIZE];
    uint8_t rack_len[N_COLORS];
    uint8_t played[N_COLORS];
    uint16_t captures[N_COLORS][N_COLORS]; /* [seat][color] */
    int to_move;
    int passes;
    int over;
} Core;

typedef struct {
    int color, tile;
    u128 cells;
} Option;

/* The legal moves of one turn, in the reference engine's order (MoveSet). */
typedef struct {
    Option opt[MAX_OPTIONS];
    int n;
    int count;
    u128 open;
    int has_open;
} Moves;

/* SplitMix64 (Steele, Lea and Flood, 2014), the generator of native playouts and of
 * the mcts bot; arena/rules/rng.py is the same in Python. */
static inline uint64_t sm_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A number below n (n >= 1) by multiply-shift; below(1) is 0 and draws nothing. */
static inline int sm_below(uint64_t *s, int n) {
    if (n <= 1) return 0;
    return (int)(((u128)sm_next(s) * (uint64_t)n) >> 64);
}

extern u128 FULL, NOT_COLUMN_1, NOT_COLUMN_9, NO_BOARD;
extern u128 FITS[N_TILES];
extern u128 NEIGHBOURS[N_CELLS];

void engine_init(void);

static inline int popcount(u128 x) {
    return __builtin_popcountll((uint64_t)x) + __builtin_popcountll((uint64_t)(x >> 64));
}

static inline int lowest_cell(u128 x) {
    uint64_t lo = (uint64_t)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(x >> 64));
}

static inline int highest_cell(u128 x) {
    uint64_t hi = (uint64_t)(x >> 64);
    return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)x);
}

/* The index-th cell of x in increasing order (index < popcount(x)). */
int nth_cell(u128 x, int index);

u128 spread(u128 board);
u128 capturable_mask(u128 board);
int capturable_at(u128 board, int cell);
int count_groups(u128 board);

void core_start(const Rules *r, Core *s, const uint8_t deals[N_COLORS][N_TILES]);
u128 core_capturable(Core *s, int color);
int core_color_at(const Rules *r, const Core *s, int cell);
int core_seat_active(const Rules *r, const Core *s, int seat);
void core_legal(const Rules *r, Core *s, Moves *m);
/* Whether color may play tile onto cell now (M1-M4, E1): 0 legal, else nonzero. */
int core_illegal(const Rules *r, Core *s, int color, int tile, int cell);
int core_push(const Rules *r, Core *s, int color, int tile, int cell);
void core_pass(const Rules *r, Core *s);
/* groups[seat], captured totals and Blockers! penalties (C1, C4). */
void core_keys(const Rules *r, const Core *s, int *groups, int *totals, int *penalties);

/* Moves as one int: color * 4096 + tile * 128 + cell; PASS_CODE for a pass. */
#define PASS_CODE (-1)
#define CODE(c, t, x) ((c) * 4096 + (t) * 128 + (x))
#define CODE_COLOR(m) ((m) >> 12)
#define CODE_TILE(m) (((m) >> 7) & 31)
#define CODE_CELL(m) ((m) & 127)

/* The playout policies (arena/rules/playout.py). */
int policy_greedy(const Rules *r, Core *s, uint64_t *rng);
int policy_random(const Rules *r, Core *s, uint64_t *rng);
/* Play to the end; policy 0 random, 1 greedy. */
void core_playout(const Rules *r, Core *s, int greedy, uint64_t *rng);
/* The mcts bot's reward of each seat for a finished game (bots/mcts.py: reward). */
void core_rewards(const Rules *r, const Core *s, double *out);

#endif
