// Makes Abstract Play game records ("AP Game Record" JSON) of Blooms with Abstract Play's own
// open-source games library, for stonegarden's import tests. Random legal games, seeded, played
// by the library's BloomsGame and exported by its genRecord(); nothing here knows the rules.
//
//   node 20: npx tsx make_records.mts GAMESLIB_DIR OUT_DIR
//
// GAMESLIB_DIR is a checkout of github.com/AbstractPlay/gameslib with its npm dependencies
// installed (see README.md in this folder).
import { pathToFileURL } from "node:url";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const [gameslib, out] = process.argv.slice(2);
const { BloomsGame } = await import(pathToFileURL(join(gameslib, "src/games/blooms.ts")).href);
// the library's own English texts, as on the site: variants are exported by their names
const { addResource } = await import(pathToFileURL(join(gameslib, "src/i18n-node.ts")).href);
addResource("en");

// a small seeded generator (mulberry32), so the records are the same on every run
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// [file name, variants, seed, resign after this many moves (0: play to the end)]
const games: Array<[string, string[], number, number]> = [
  ["ap-blooms-size4-s1.json", ["size-4"], 1, 0],
  ["ap-blooms-size4-s2.json", ["size-4"], 2, 0],
  ["ap-blooms-size5-s3.json", ["size-5"], 3, 0],
  ["ap-blooms-size6-s4.json", [], 4, 0],
  ["ap-blooms-size8-s5.json", ["size-8"], 5, 0],
  ["ap-blooms-size5-resign-s6.json", ["size-5"], 6, 9],
];

for (const [name, variants, seed, resignAt] of games) {
  const random = rng(seed);
  const g = new BloomsGame(undefined, variants);
  let played = 0;
  while (!g.gameover) {
    if (resignAt && played === resignAt) {
      g.resign(g.currplayer);
      break;
    }
    const moves: string[] = g.moves();
    g.move(moves[Math.floor(random() * moves.length)]);
    played++;
  }
  const rec = g.genRecord({
    uid: `stonegarden-test-${seed}`,
    players: [
      { name: "Alice", uid: "p1", isai: false },
      { name: "Bob", uid: "p2", isai: false },
    ],
    dateStart: new Date("2026-01-01T12:00:00Z"),
    dateEnd: new Date("2026-01-01T13:00:00Z"),
  });
  // date-generated is the clock at export: fixed so regenerating changes nothing
  rec.header["date-generated"] = "2026-01-01T13:00:00.000Z";
  writeFileSync(join(out, name), JSON.stringify(rec, null, 1) + "\n");
  console.log(name, played, "moves, winner", g.winner);
}
