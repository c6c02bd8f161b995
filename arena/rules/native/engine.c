/* The rules (B1-B3, M1-M6, E1-E3, C1-C4) and the playout policies, line for line the
 * reference engine's (arena/rules/geometry.py, state.py, playout.py): the same legal
 * moves in the same order, the same capture memo, the same draws from the generator. */
#include "engine.h"

#include <math.h>
#include <string.h>

u128 FULL, NOT_COLUMN_1, NOT_COLUMN_9, NO_BOARD;
u128 FITS[N_TILES];
u128 NEIGHBOURS[N_CELLS];

static u128 bit(int cell) { return (u128)1 << cell; }

void engine_init(void) {
    FULL = ((u128)1 << N_CELLS) - 1;
    NO_BOARD = ~(u128)0; /* no board has bits past cell 80 */
    u128 column1 = 0, column9 = 0;
    for (int r = 0; r < 9; r++) {
        column1 |= bit(9 * r);
        column9 |= bit(9 * r + 8);
    }
    NOT_COLUMN_1 = FULL & ~column1;
    NOT_COLUMN_9 = FULL & ~column9;
    /* Tiles: 0-8 rows A-I, 9-17 columns 1-9, 18-26 regions, 27 the wild $ (M1). */
    for (int t = 0; t < N_TILES; t++) FITS[t] = 0;
    for (int cell = 0; cell < N_CELLS; cell++) {
        int row = cell / 9, column = cell % 9;
        FITS[row] |= bit(cell);
        FITS[9 + column] |= bit(cell);
        FITS[18 + 3 * (row / 3) + column / 3] |= bit(cell);
    }
    FITS[WILD] = FULL;
    for (int cell = 0; cell < N_CELLS; cell++) NEIGHBOURS[cell] = spread(bit(cell)) & ~bit(cell);
}

int nth_cell(u128 x, int index) {
    uint64_t lo = (uint64_t)x;
    int n = __builtin_popcountll(lo);
    if (index >= n) {
        index -= n;
        lo = (uint64_t)(x >> 64);
        for (; index > 0; index--) lo &= lo - 1;
        return 64 + __builtin_ctzll(lo);
    }
    for (; index > 0; index--) lo &= lo - 1;
    return __builtin_ctzll(lo);
}

/* -- geometry (B3, M3) ------------------------------------------------------------------ */

u128 spread(u128 b) {
    return (b | ((b << 1) & NOT_COLUMN_1) | ((b >> 1) & NOT_COLUMN_9) | (b << 9) | (b >> 9)) & FULL;
}

static u128 flood(u128 seed, u128 within) {
    u128 reached = seed & within;
    for (;;) {
        u128 grown = (reached | ((reached << 1) & NOT_COLUMN_1) | ((reached >> 1) & NOT_COLUMN_9) | (reached << 9) |
                      (reached >> 9)) & within;
        if (grown == reached) return reached;
        reached = grown;
    }
}

/* geometry.cut_candidates: tiles whose side neighbours fall into two or more runs. */
static u128 cut_candidates(u128 board) {
    u128 up = board << 9, down = board >> 9;
    u128 left = (board << 1) & NOT_COLUMN_1, right = (board >> 1) & NOT_COLUMN_9;
    u128 starts_right = right & ~(up & (right << 9));
    u128 starts_down = down & ~(right & (right >> 9));
    u128 starts_left = left & ~(down & (left >> 9));
    u128 starts_up = up & ~(left & (left << 9));
    return ((starts_right & (starts_down | starts_left | starts_up)) | (starts_down & (starts_left | starts_up)) |
            (starts_left & starts_up)) & board;
}

static int stays_joined(u128 board, u128 b) {
    u128 touching = (spread(b) & board) ^ b;
    return !(touching & ~flood(touching & (~touching + 1), board ^ b));
}

u128 capturable_mask(u128 board) {
    u128 split = cut_candidates(board);
    u128 mask = board ^ split;
    while (split) {
        u128 b = split & (~split + 1);
        split ^= b;
        if (stays_joined(board, b)) mask |= b;
    }
    return mask;
}

int capturable_at(u128 board, int cell) {
    u128 b = bit(cell);
    return !(cut_candidates(board) & b) || stays_joined(board, b);
}

int count_groups(u128 board) {
    u128 joined = board & (((board << 1) & NOT_COLUMN_1) | ((board >> 1) & NOT_COLUMN_9) | (board << 9) | (board >> 9));
    int groups = popcount(board ^ joined);
    while (joined) {
        joined ^= flood(joined & (~joined + 1), joined);
        groups++;
    }
    return groups;
}

/* -- the state -------------------------------------------------------------------------- */

void core_start(const Rules *r, Core *s, const uint8_t deals[N_COLORS][N_TILES]) {
    memset(s, 0, sizeof *s);
    for (int c = 0; c < N_COLORS; c++) {
        s->capturable_of[c] = NO_BOARD;
        if (r->seat_of[c] < 0) continue;
        memcpy(s->deals[c], deals[c], N_TILES);
        memcpy(s->rack[c], deals[c], RACK_SIZE);
        s->rack_len[c] = RACK_SIZE;
        s->drawn[c] = RACK_SIZE;
    }
}

u128 core_capturable(Core *s, int color) {
    if (s->capturable_of[color] != s->boards[color]) {
        s->capturable[color] = capturable_mask(s->boards[color]);
        s->capturable_of[color] = s->boards[color];
    }
    return s->capturable[color];
}

int core_color_at(const Rules *r, const Core *s, int cell) {
    u128 b = bit(cell);
    if (s->occupied & b)
        for (int i = 0; i < r->n_colors; i++)
            if (s->boards[r->colors[i]] & b) return r->colors[i];
    return -1;
}

int core_seat_active(const Rules *r, const Core *s, int seat) {
    for (int i = 0; i < r->n_own[seat]; i++)
        if (s->played[r->seat_colors[seat][i]] < TILES_PLAYED) return 1;
    return 0;
}

void core_legal(const Rules *r, Core *s, Moves *m) {
    m->n = m->count = 0;
    m->open = 0;
    m->has_open = 0;
    if (s->over) return;
    int seat = s->to_move;
    u128 targets = FULL ^ s->occupied;
    for (int i = 0; i < r->n_rivals[seat]; i++) targets |= core_capturable(s, r->rivals[seat][i]);
    for (int i = 0; i < r->n_own[seat]; i++) {
        int color = r->seat_colors[seat][i];
        if (s->played[color] >= TILES_PLAYED) continue;
        for (int k = 0; k < s->rack_len[color]; k++) {
            int tile = s->rack[color][k];
            u128 cells = FITS[tile] & targets;
            if (cells) {
                Option *o = &m->opt[m->n++];
                o->color = color;
                o->tile = tile;
                o->cells = cells;
                m->count += popcount(cells);
            }
        }
    }
    m->open = targets;
    m->has_open = 1;
}

int core_illegal(const Rules *r, Core *s, int color, int tile, int cell) {
    if (s->over || color < 0 || color >= N_COLORS || tile < 0 || tile >= N_TILES || cell < 0 || cell >= N_CELLS)
        return 1;
    int seat = s->to_move;
    if (r->seat_of[color] != seat || s->played[color] >= TILES_PLAYED) return 1;
    if (!memchr(s->rack[color], tile, s->rack_len[color])) return 1;
    if (!(FITS[tile] >> cell & 1)) return 1;
    int occupant = core_color_at(r, s, cell);
    if (occupant < 0) return 0;
    if (r->seat_of[occupant] == seat) return 1;
    return !(core_capturable(s, occupant) >> cell & 1);
}

static void next_seat(const Rules *r, Core *s) {
    for (int k = 1; k <= r->players; k++) {
        int seat = (s->to_move + k) % r->players;
        if (core_seat_active(r, s, seat)) {
            s->to_move = seat;
            return;
        }
    }
    s->over = 1; /* E2: every color is finished */
}

int core_push(const Rules *r, Core *s, int color, int tile, int cell) {
    u128 b = bit(cell);
    int victim = -1;
    if (s->occupied & b) {
        for (int i = 0; i < r->n_colors; i++)
            if (s->boards[r->colors[i]] & b) {
                victim = r->colors[i];
                break;
            }
        u128 board = s->boards[victim];
        s->boards[victim] = board ^ b;
        s->captures[s->to_move][victim]++;
        /* A lone tile leaves the capture memo right as it is, less itself. */
        if (s->capturable_of[victim] == board && !(NEIGHBOURS[cell] & board)) {
            s->capturable[victim] &= ~b;
            s->capturable_of[victim] = board ^ b;
        }
    } else {
        s->occupied |= b;
    }
    u128 board = s->boards[color];
    s->boards[color] = board | b;
    if (s->capturable_of[color] == board) {
        /* The new tile joins at most one tile of its color: the memo stays right (state.py). */
        u128 touching = NEIGHBOURS[cell] & board;
        if (!touching) {
            s->capturable[color] |= b;
            s->capturable_of[color] = board | b;
        } else if (!(touching & (touching - 1))) {
            if (NEIGHBOURS[highest_cell(touching)] & board)
                s->capturable[color] = (s->capturable[color] | b) & ~touching;
            else
                s->capturable[color] |= b;
            s->capturable_of[color] = board | b;
        }
    }
    uint8_t *rack = s->rack[color];
    int n = s->rack_len[color];
    for (int k = 0; k < n; k++)
        if (rack[k] == tile) {
            memmove(rack + k, rack + k + 1, (size_t)(n - k - 1));
            break;
        }
    n--;
    if (s->drawn[color] < N_TILES) { /* M5 */
        rack[n++] = s->deals[color][s->drawn[color]];
        s->drawn[color]++;
    }
    s->rack_len[color] = (uint8_t)n;
    s->played_tiles[color][s->played[color]] = (uint8_t)tile;
    s->played[color]++;
    s->passes = 0;
    next_seat(r, s);
    return victim;
}

void core_pass(const Rules *r, Core *s) {
    s->passes++;
    int active = 0;
    for (int seat = 0; seat < r->players; seat++) active += core_seat_active(r, s, seat);
    if (s->passes >= active) {
        s->over = 1; /* E3 */
        return;
    }
    next_seat(r, s);
}

void core_keys(const Rules *r, const Core *s, int *groups, int *totals, int *penalties) {
    for (int seat = 0; seat < r->players; seat++) {
        int g = 0, total = 0, most = 0;
        for (int i = 0; i < r->n_own[seat]; i++) g += count_groups(s->boards[r->seat_colors[seat][i]]);
        for (int c = 0; c < N_COLORS; c++) {
            total += s->captures[seat][c];
            if (s->captures[seat][c] > most) most = s->captures[seat][c];
        }
        if (r->penalty_opponent) {
            most = 0;
            for (int other = 0; other < r->players; other++) {
                if (other == seat) continue;
                int sum = 0;
                for (int i = 0; i < r->n_own[other]; i++) sum += s->captures[seat][r->seat_colors[other][i]];
                if (sum > most) most = sum;
            }
        }
        groups[seat] = g;
        totals[seat] = total;
        penalties[seat] = most;
    }
}

/* -- playouts (arena/rules/playout.py) -------------------------------------------------- */

static int pick(u128 cells, uint64_t *rng) { return nth_cell(cells, sm_below(rng, popcount(cells))); }

int policy_random(const Rules *r, Core *s, uint64_t *rng) {
    Moves m;
    core_legal(r, s, &m);
    if (!m.count) return PASS_CODE;
    int index = sm_below(rng, m.count);
    for (int i = 0; i < m.n; i++) {
        int n = popcount(m.opt[i].cells);
        if (index < n) return CODE(m.opt[i].color, m.opt[i].tile, nth_cell(m.opt[i].cells, index));
        index -= n;
    }
    return PASS_CODE; /* unreachable */
}

int policy_greedy(const Rules *r, Core *s, uint64_t *rng) {
    Option attach[MAX_OPTIONS], near[MAX_OPTIONS], free_[MAX_OPTIONS];
    int n_attach = 0, n_near = 0, n_free = 0, has_wild = 0;
    Option wild = {0, 0, 0};
    struct { int color; u128 around; } open[2];
    int n_open = 0;
    u128 empty = FULL ^ s->occupied;
    int seat = s->to_move;
    for (int i = 0; i < r->n_own[seat]; i++) {
        int color = r->seat_colors[seat][i];
        if (s->played[color] >= TILES_PLAYED) continue;
        u128 b = s->boards[color], around, front;
        if (b) {
            around = spread(b) & ~b;
            front = around & empty;
        } else {
            around = front = empty;
        }
        if (front)
            for (int k = 0; k < s->rack_len[color]; k++) {
                int tile = s->rack[color][k];
                u128 cells = FITS[tile] & front;
                if (!cells) continue;
                Option o = {color, tile, cells};
                if (tile == WILD) {
                    wild = o;
                    has_wild = 1;
                } else {
                    attach[n_attach++] = o;
                }
            }
        open[n_open].color = color;
        open[n_open++].around = around;
    }
    if (n_attach) {
        Option *o = &attach[sm_below(rng, n_attach)];
        return CODE(o->color, o->tile, pick(o->cells, rng));
    }
    if (has_wild) return CODE(wild.color, wild.tile, pick(wild.cells, rng));
    u128 own = 0;
    for (int i = 0; i < r->n_own[seat]; i++) own |= s->boards[r->seat_colors[seat][i]];
    u128 rivals = s->occupied & ~own;
    for (int i = 0; i < n_open; i++) {
        int color = open[i].color;
        u128 targets = open[i].around & rivals;
        if (!targets) continue;
        for (int k = 0; k < s->rack_len[color]; k++) {
            u128 cells = FITS[s->rack[color][k]] & targets;
            if (cells) near[n_near++] = (Option){color, s->rack[color][k], cells};
        }
    }
    if (n_near) {
        int start = sm_below(rng, n_near);
        for (int i = 0; i < n_near; i++) {
            Option *o = &near[(start + i) % n_near];
            u128 cells = o->cells;
            while (cells) {
                int cell = lowest_cell(cells);
                int victim = core_color_at(r, s, cell);
                if (core_capturable(s, victim) >> cell & 1) return CODE(o->color, o->tile, cell);
                cells &= cells - 1;
            }
        }
    }
    for (int i = 0; i < n_open; i++) {
        int color = open[i].color;
        for (int k = 0; k < s->rack_len[color]; k++) {
            u128 cells = FITS[s->rack[color][k]] & empty;
            if (cells) free_[n_free++] = (Option){color, s->rack[color][k], cells};
        }
    }
    if (n_free) {
        Option *o = &free_[sm_below(rng, n_free)];
        return CODE(o->color, o->tile, pick(o->cells, rng));
    }
    return policy_random(r, s, rng);
}

void core_playout(const Rules *r, Core *s, int greedy, uint64_t *rng) {
    while (!s->over) {
        int move = greedy ? policy_greedy(r, s, rng) : policy_random(r, s, rng);
        if (move == PASS_CODE)
            core_pass(r, s);
        else
            core_push(r, s, CODE_COLOR(move), CODE_TILE(move), CODE_CELL(move));
    }
}

void core_rewards(const Rules *r, const Core *s, double *out) {
    int groups[N_COLORS], totals[N_COLORS], penalties[N_COLORS], key[N_COLORS];
    int n = r->players;
    core_keys(r, s, groups, totals, penalties);
    int sum = 0;
    for (int seat = 0; seat < n; seat++) {
        key[seat] = r->blockers ? groups[seat] + penalties[seat] : groups[seat];
        sum += key[seat];
    }
    double mean = (double)sum / n;
    for (int seat = 0; seat < n; seat++) {
        double beaten = 0.0;
        for (int k = 0; k < n; k++) {
            int less = key[seat] < key[k] || (key[seat] == key[k] && totals[seat] < totals[k]);
            int same = key[seat] == key[k] && totals[seat] == totals[k];
            beaten += less ? 1.0 : same ? 0.5 : 0.0;
        }
        beaten -= 0.5;
        double rank = beaten / (n - 1);
        double others = (mean * n - key[seat]) / (n - 1);
        double margin = 1.0 / (1.0 + exp(key[seat] - others));
        out[seat] = 0.5 * rank + 0.5 * margin;
    }
}
