#!/usr/bin/env node
// A bot for the arena in JavaScript (docs/protocol.md): one ZeroMQ DEALER socket, msgpack maps.
// It plays every game legally (a seeded random choice) and Skull with a small strategy: a skull
// trap at the bottom of its stack, flowers on it, bids no higher than those flowers.
"use strict";

const zmq = require("zeromq");
const { Encoder, Decoder } = require("@msgpack/msgpack");

// Seeds are unsigned 63-bit integers: decode 64-bit integers as BigInt, or they lose precision.
const encoder = new Encoder({ useBigInt64: true });
const decoder = new Decoder({ useBigInt64: true });
const WELCOME_MS = 10000;

// A small seeded generator (splitmix64) over the start message's seed: a deterministic bot.
function seeded(seed) {
  let state = BigInt.asUintN(64, BigInt(seed));
  return function random() {
    state = BigInt.asUintN(64, state + 0x9e3779b97f4a7c15n);
    let z = state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    z ^= z >> 31n;
    return Number(z >> 11n) / 2 ** 53; // in [0, 1)
  };
}

function pick(legal, random) {
  return legal[Math.floor(random() * legal.length)];
}

// Skull (docs/games/skull.md): actions are place:flower|skull, bid:N, pass, flip:SEAT,
// discard:flower|skull, first:SEAT. The strategy: its skull at the bottom of its stack (a trap
// for challengers, who flip from the top) and flowers on it; a challenger flips their own stack
// first, top first and only as far as the bid, so bids up to the flowers on top are safe: it
// bids and raises only that far.
function skull(view, legal, random) {
  const offered = (a) => legal.includes(a);
  const bids = legal.filter((a) => a.startsWith("bid:"));
  const stack = view.stack || [];
  let safe = 0; // flowers on top of the stack (the view lists it bottom first)
  while (safe < stack.length && stack[stack.length - 1 - safe] === "flower") safe += 1;
  if (view.phase === "setup") return offered("place:skull") ? "place:skull" : legal[0];
  if (offered("pass")) {
    const raise = bids[0];
    return raise && Number(raise.slice(4)) <= safe ? raise : "pass";
  }
  if (bids.length > 0 && safe > 0 && offered(`bid:${safe}`)
      && (!offered("place:flower") || random() < 0.5)) {
    return `bid:${safe}`;
  }
  if (offered("place:flower")) return "place:flower";
  if (bids.length > 0) return bids[0];
  if (offered("discard:flower")) return "discard:flower"; // keep the skull: it is the trap
  return pick(legal, random);
}

const STRATEGIES = { skull };

function choose(game, view, legal) {
  const strategy = STRATEGIES[game.name];
  const action = strategy ? strategy(view, legal, game.random) : pick(legal, game.random);
  return legal.includes(action) ? action : legal[0];
}

async function main() {
  const endpoint = process.env.ARENA_ENDPOINT;
  const token = process.env.ARENA_TOKEN;
  if (!endpoint || !token) {
    console.error("ARENA_ENDPOINT and ARENA_TOKEN are not set: the arena starts this bot");
    process.exit(2);
  }
  const sock = new zmq.Dealer({ linger: 1000, receiveTimeout: WELCOME_MS });
  sock.connect(endpoint);
  // Its state is kept per game (the `games` map below), so it serves several games at once;
  // `batch: true`: the arena may send it several messages in one `batch` (the turns of all its
  // games waiting at once), which it answers with one `batch` of actions.
  await sock.send(encoder.encode({
    type: "hello", protocol: 1, token, name: "node-example", max_games: 8, batch: true,
  }));
  let reply;
  try {
    [reply] = await sock.receive();
  } catch (err) {
    console.error(`no welcome within ${WELCOME_MS} ms (${err.code || err.message}); giving up`);
    process.exit(1);
  }
  const welcome = decoder.decode(reply);
  if (welcome.type !== "welcome") {
    console.error(`refused: ${welcome.code}: ${welcome.message}`);
    process.exit(1);
  }
  sock.receiveTimeout = -1;
  const games = new Map(); // String(game_id) -> { name, random }

  // One message (alone, or an entry of a batch); returns the action answering a turn, or null.
  function handle(msg) {
    switch (msg.type) {
      case "start":
        games.set(String(msg.game_id), { name: msg.game, random: seeded(msg.seed) });
        return null;
      case "turn": {
        const game = games.get(String(msg.game_id)) || { name: "?", random: Math.random };
        const action = choose(game, msg.view, msg.legal);
        return { type: "action", game_id: msg.game_id, request: msg.request, action };
      }
      case "end":
        games.delete(String(msg.game_id));
        return null;
      default:
        console.error(`ignored a message of type ${msg.type}`);
        return null;
    }
  }

  for (;;) {
    const [frame] = await sock.receive();
    const msg = decoder.decode(frame);
    if (msg.type === "bye") {
      sock.close();
      process.exit(0);
    }
    if (msg.type === "batch") {
      // Its messages in order; every turn's answer in one batch (each echoes its own ids).
      const answers = msg.messages.map(handle).filter((answer) => answer !== null);
      if (answers.length > 0) {
        await sock.send(encoder.encode({ type: "batch", messages: answers }));
      }
    } else {
      const answer = handle(msg);
      if (answer !== null) await sock.send(encoder.encode(answer));
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
