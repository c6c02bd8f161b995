/* The floor of whole random playouts: the native engine's rules core (arena/rules/native/engine.c)
 * in a plain C program, no Python anywhere.  benchmarks/engine.py --floor compiles it with cc at run
 * time, links it with engine.c and times it beside the native engine's playouts of the same deals.
 *
 * stdin (text):  players blockers penalty_opponent games
 *                seat colors, n_own per seat: the colors of seat 0, then of seat 1, ...
 *                then per game: its generator seed and the 28 tiles of every color in play, colors in seat order
 * argv[1]:       rounds (each plays every game once, as GameState(settings, deal).playout(SplitMix64(seed)) does)
 * stdout:        "round <cpu seconds>" per round, then "check <hash>": FNV-1a of every game's
 *                (groups, captured, penalty) per seat and the generator's final state, the same hash
 *                engine.py computes from the native engine's playouts (the same games, checked). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "engine.h"

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t fnv(uint64_t h, uint64_t v) {
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xFF;
        h *= 0x100000001B3ULL;
    }
    return h;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    int blockers, penalty_opponent, games;
    Rules r = {0};
    engine_init();
    if (scanf("%d %d %d %d", &r.players, &blockers, &penalty_opponent, &games) != 4 || r.players < 2 ||
        r.players > 5 || games < 1 || rounds < 1) {
        fprintf(stderr, "engine_floor: a bad header\n");
        return 2;
    }
    r.blockers = blockers;
    r.penalty_opponent = penalty_opponent;
    for (int c = 0; c < N_COLORS; c++) r.seat_of[c] = -1;
    for (int seat = 0; seat < r.players; seat++) {
        r.n_own[seat] = r.players == 2 ? 2 : 1;
        for (int i = 0; i < r.n_own[seat]; i++) {
            int c;
            if (scanf("%d", &c) != 1 || c < 0 || c >= N_COLORS) return 2;
            r.seat_colors[seat][i] = c;
            r.seat_of[c] = seat;
            r.colors[r.n_colors++] = c;
        }
    }
    for (int seat = 0; seat < r.players; seat++)
        for (int i = 0; i < r.n_colors; i++)
            if (r.seat_of[r.colors[i]] != seat) r.rivals[seat][r.n_rivals[seat]++] = r.colors[i];
    uint64_t *seeds = malloc(sizeof *seeds * (size_t)games);
    uint8_t(*deals)[N_COLORS][N_TILES] = calloc((size_t)games, sizeof *deals);
    if (!seeds || !deals) return 2;
    for (int g = 0; g < games; g++) {
        unsigned long long seed;
        if (scanf("%llu", &seed) != 1) return 2;
        seeds[g] = seed;
        for (int i = 0; i < r.n_colors; i++)
            for (int k = 0; k < N_TILES; k++) {
                int t;
                if (scanf("%d", &t) != 1 || t < 0 || t >= N_TILES) return 2;
                deals[g][r.colors[i]][k] = (uint8_t)t;
            }
    }
    uint64_t check = 0xCBF29CE484222325ULL;
    for (int round = 0; round < rounds; round++) {
        uint64_t h = 0xCBF29CE484222325ULL;
        double start = cpu_seconds();
        for (int g = 0; g < games; g++) {
            Core s;
            uint64_t rng = seeds[g];
            core_start(&r, &s, (const uint8_t(*)[N_TILES])deals[g]);
            core_playout(&r, &s, 0, &rng);
            int groups[N_COLORS], totals[N_COLORS], penalties[N_COLORS];
            core_keys(&r, &s, groups, totals, penalties);
            for (int seat = 0; seat < r.players; seat++) {
                h = fnv(h, (uint64_t)groups[seat]);
                h = fnv(h, (uint64_t)totals[seat]);
                h = fnv(h, (uint64_t)penalties[seat]);
            }
            h = fnv(h, rng);
        }
        printf("round %.9f\n", cpu_seconds() - start);
        check = h;
    }
    printf("check %016llx\n", (unsigned long long)check);
    return 0;
}
