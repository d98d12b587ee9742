// A browser's gRPC-Web client (Connect's fetch-based transport, the one web pages use),
// driven from Node: two players register, create and join a game, follow it with a
// WatchGame stream, play turns from the views' legal sets and get a refusal's code back.
// Prints one JSON summary line; exits non-zero on any failure. Usage:
//   node client.mjs http://127.0.0.1:PORT descriptor_set.bin

import { readFileSync } from "node:fs";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";

const [baseUrl, descriptorPath] = process.argv.slice(2);
const registry = createFileRegistry(
  fromBinary(FileDescriptorSetSchema, readFileSync(descriptorPath)),
);
const GameService = registry.getService("theboss.v1.GameService");
const transport = createGrpcWebTransport({ baseUrl, useBinaryFormat: true });
const client = createClient(GameService, transport);
const as = (token) => ({ headers: { authorization: `Bearer ${token}` } });

const players = [];
for (const name of ["Web North", "Web South"]) {
  players.push(await client.register({ displayName: name, isBot: true }));
}
const { gameId } = await client.createGame({ settings: { players: 2 } }, as(players[0].apiToken));
for (const [seat, p] of players.entries()) {
  await client.joinGame({ gameId, seat }, as(p.apiToken));
}

// Follow the game as the first player, in the background.
const stop = new AbortController();
const seen = { snapshots: 0, updates: 0, lastSeq: 0n, hands: 0 };
const following = (async () => {
  try {
    const stream = client.watchGame({ gameId }, { ...as(players[0].apiToken), signal: stop.signal });
    for await (const message of stream) {
      if (message.message.case === "snapshot") {
        seen.snapshots += 1;
        seen.hands = message.message.value.hand.length;
      } else if (message.message.case === "update") {
        seen.updates += 1;
        seen.lastSeq = message.message.value.seq;
      }
    }
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  }
})();

let answered = 0n;
const turns = 6;
for (let i = 0; i < turns; i++) {
  const { view } = await client.getView({ gameId }, as(players[0].apiToken));
  const mover = players[view.toMove];
  const mine = (await client.getView({ gameId }, as(mover.apiToken))).view;
  const response = await client.submitAction(
    {
      gameId,
      expectedSeq: mine.seq,
      idempotencyKey: `web-${i}`,
      action: { card: mine.legal.cards[0] },
    },
    as(mover.apiToken),
  );
  answered = response.seq;
}

// A stale turn: the error's code and reason reach the page.
let refused = null;
try {
  const { view } = await client.getView({ gameId }, as(players[0].apiToken));
  const mover = players[view.toMove];
  const mine = (await client.getView({ gameId }, as(mover.apiToken))).view;
  await client.submitAction(
    { gameId, expectedSeq: mine.seq - 1n, idempotencyKey: "stale", action: { card: mine.legal.cards[0] } },
    as(mover.apiToken),
  );
} catch (error) {
  refused = ConnectError.from(error).code === Code.Aborted ? "ABORTED" : String(error);
}

// Wait until the stream has caught up with the last turn, then close it.
const deadline = Date.now() + 10_000;
while (seen.lastSeq < answered && Date.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 20));
}
stop.abort();
await following;

console.log(
  JSON.stringify({
    players: players.length,
    turns,
    answered: Number(answered),
    snapshots: seen.snapshots,
    updates: seen.updates,
    streamed_to: Number(seen.lastSeq),
    hand: seen.hands,
    refused,
  }),
);
