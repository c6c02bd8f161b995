#!/usr/bin/env node
// A random bot for the Uptown arena, speaking the JSON-lines protocol uptown-bot/1.
//
// Run it with:
//
//     arena play "exec:node examples/protocol/random_bot.js" random
//
// It uses only the Node.js standard library (readline), no npm packages, and
// does not need the arena. It plays a legal move chosen with SplitMix64
// (BigInt arithmetic), seeded from the first 16 hex digits of the game's
// `seed`, so the same seed always gives the same choices (the same as
// random_bot.py). With the option captures=false it prefers moves onto
// empty cells.
"use strict";
const readline = require("readline");

const MASK = (1n << 64n) - 1n;

class SplitMix64 {
  constructor(seed) { this.state = BigInt.asUintN(64, seed); }
  next() {
    this.state = (this.state + 0x9e3779b97f4a7c15n) & MASK;
    let z = this.state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
  }
}

function send(message) { process.stdout.write(JSON.stringify(message) + "\n"); }

function choose(legal, view, options, rng) {
  let moves = legal;
  if (options.captures === false) {
    const occupied = new Set(Object.values(view.board).flat());
    const free = legal.filter((m) => m.includes("@") && !occupied.has(m.split("@")[1]));
    if (free.length > 0) moves = free;
  }
  return moves[Number(rng.next() % BigInt(moves.length))];
}

let rng = new SplitMix64(0n);
let options = { captures: true };
const rl = readline.createInterface({ input: process.stdin, terminal: false });

rl.on("line", (line) => {
  if (line.trim() === "") return;
  const msg = JSON.parse(line);
  if (msg.type === "hello") {
    send({ type: "hello", protocol: "uptown-bot/1", name: "random-js",
           description: "Plays a legal move chosen at random (SplitMix64).",
           options: { captures: true } });
  } else if (msg.type === "game") {
    const seat = msg.seat;
    const colors = msg.players.find((p) => p.seat === seat).colors;
    options = msg.options || { captures: true };
    rng = new SplitMix64(BigInt("0x" + msg.seed.slice(0, 16)));
    process.stderr.write(`random-js: game as seat ${seat} (${colors.join(", ")})\n`);
  } else if (msg.type === "turn") {
    send({ type: "move", move: choose(msg.legal, msg.view, options, rng) });
  } else if (msg.type === "over") {
    process.stderr.write("random-js: game over\n");
  } else if (msg.type === "quit") {
    rl.close();
  }
});
// On quit or end of input: stop reading; Node exits (code 0) once stdout is flushed.
rl.on("close", () => process.stdin.destroy());
