-- A schema-version-3 results database, made by the arena before secret keys (main at
-- a63d3c9): `arena bot add far --remote --game skull`, `arena bot token far --curve`,
-- `arena tournament create --game skull --bots random,first,random --table-size 3
-- --seed 5`. Its arena_keys table holds the arena's CURVE key pair (secret included).
PRAGMA user_version = 3;
BEGIN TRANSACTION;
CREATE TABLE arena_keys (
            name TEXT PRIMARY KEY,
            public TEXT NOT NULL,
            secret TEXT NOT NULL
        );
INSERT INTO "arena_keys" VALUES('curve','*oOHlQl-{<-Douk]Eqb$UVrGE<asAB9GulNZbx<[','TYjn}1.$cW3MHC-3(7>%2@qIL/:jR.t}tYrc)v&.');
CREATE TABLE "bots" (
   "name" TEXT PRIMARY KEY,
   "command" TEXT NOT NULL,
   "path" TEXT,
   "kind" TEXT NOT NULL DEFAULT 'registered',
   "version" TEXT NOT NULL DEFAULT '',
   "games" TEXT NOT NULL DEFAULT '[]',
   "played" INTEGER NOT NULL DEFAULT 0,
   "added_at" TEXT NOT NULL
);
INSERT INTO "bots" VALUES('far','(remote)',NULL,'registered','remote','["skull"]',0,'2026-11-30T18:29:21.205+00:00');
CREATE TABLE "entrants" (
   "tournament_id" INTEGER REFERENCES "tournaments"("id"),
   "label" TEXT,
   "position" INTEGER NOT NULL,
   "bot" TEXT NOT NULL,
   "bot_version" TEXT NOT NULL,
   PRIMARY KEY ("tournament_id", "label")
);
INSERT INTO "entrants" VALUES(1,'random',0,'random','c24f252d63ea');
INSERT INTO "entrants" VALUES(1,'first',1,'first','12b8555f64ec');
INSERT INTO "entrants" VALUES(1,'random#2',2,'random','c24f252d63ea');
CREATE TABLE "faults" (
   "id" INTEGER PRIMARY KEY,
   "game_id" INTEGER NOT NULL REFERENCES "games"("id"),
   "seat" INTEGER NOT NULL,
   "step" INTEGER NOT NULL,
   "kind" TEXT NOT NULL,
   "detail" TEXT NOT NULL
);
CREATE TABLE "games" (
   "id" INTEGER PRIMARY KEY,
   "tournament_id" INTEGER NOT NULL REFERENCES "tournaments"("id"),
   "plan_index" INTEGER NOT NULL,
   "round" INTEGER NOT NULL,
   "table_index" INTEGER NOT NULL,
   "rotation" INTEGER NOT NULL,
   "deal_seed" INTEGER NOT NULL,
   "seating" TEXT NOT NULL,
   "status" TEXT NOT NULL DEFAULT 'pending',
   "started_at" TEXT,
   "finished_at" TEXT,
   "wall_ms" REAL,
   "actions" TEXT,
   "outcome" TEXT,
   "forfeits" TEXT
);
INSERT INTO "games" VALUES(1,1,0,0,0,0,6506700824533148751,'["random","first","random#2"]','pending',NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "games" VALUES(2,1,1,0,0,1,6506700824533148751,'["first","random#2","random"]','pending',NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "games" VALUES(3,1,2,0,0,2,6506700824533148751,'["random#2","random","first"]','pending',NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE rating_history (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            game_index INTEGER NOT NULL,
            entrant TEXT NOT NULL,
            rating REAL NOT NULL,
            PRIMARY KEY (tournament_id, game_index, entrant)
        ) WITHOUT ROWID;
CREATE TABLE "ratings" (
   "tournament_id" INTEGER REFERENCES "tournaments"("id"),
   "method" TEXT,
   "entrant" TEXT,
   "rating" REAL NOT NULL,
   "lo" REAL,
   "hi" REAL,
   "games" INTEGER NOT NULL,
   PRIMARY KEY ("tournament_id", "method", "entrant")
);
CREATE TABLE remote_tokens (
            token_hash TEXT PRIMARY KEY,
            bot TEXT NOT NULL,
            client_key TEXT,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            used_at TEXT
        );
INSERT INTO "remote_tokens" VALUES('275736b5677b61dddf898a01d1af34e44915ab5946ace6e54aa66aacff423bc5','far','z/hj$F1wYg4NKVfTqm8Q+v7(awJ{wz=l5[[wLs1Q','2026-11-30T18:29:21+00:00','2026-12-01T18:29:21+00:00',NULL);
CREATE TABLE "seats" (
   "game_id" INTEGER REFERENCES "games"("id"),
   "seat" INTEGER,
   "tournament_id" INTEGER NOT NULL REFERENCES "tournaments"("id"),
   "entrant" TEXT NOT NULL,
   "place" INTEGER NOT NULL,
   "score" REAL NOT NULL,
   "think_us" INTEGER NOT NULL,
   "decisions" INTEGER NOT NULL,
   "faults" INTEGER NOT NULL,
   "forfeited" INTEGER NOT NULL,
   PRIMARY KEY ("game_id", "seat")
);
CREATE TABLE "tournaments" (
   "id" INTEGER PRIMARY KEY,
   "game" TEXT NOT NULL,
   "options" TEXT NOT NULL,
   "table_size" INTEGER NOT NULL,
   "rounds" INTEGER NOT NULL,
   "seed" INTEGER NOT NULL,
   "move_ms" INTEGER NOT NULL,
   "created_at" TEXT NOT NULL,
   "status" TEXT NOT NULL DEFAULT 'planned'
);
INSERT INTO "tournaments" VALUES(1,'skull','{}',3,1,5,1000,'2026-11-30T18:29:22.091+00:00','planned');
CREATE UNIQUE INDEX "idx_games_tournament_id_plan_index"
    ON "games" ("tournament_id", "plan_index");
CREATE INDEX "idx_games_tournament_id_status"
    ON "games" ("tournament_id", "status");
CREATE INDEX "idx_seats_tournament_id_entrant"
    ON "seats" ("tournament_id", "entrant");
CREATE INDEX "idx_faults_game_id"
    ON "faults" ("game_id");
CREATE VIEW "standings" AS 
        SELECT e.tournament_id, e.label AS entrant, e.bot, e.bot_version,
               COUNT(s.game_id) AS games,
               COALESCE(SUM(s.place = 1), 0) AS wins,
               ROUND(AVG(s.place), 3) AS mean_place,
               ROUND(AVG(s.score), 3) AS mean_score,
               COALESCE(SUM(s.faults), 0) AS faults,
               COALESCE(SUM(s.forfeited), 0) AS forfeits
        FROM entrants e
        LEFT JOIN seats s ON s.tournament_id = e.tournament_id AND s.entrant = e.label
        GROUP BY e.tournament_id, e.label;
CREATE VIEW "head_to_head" AS 
        SELECT a.tournament_id, a.entrant, b.entrant AS opponent, COUNT(*) AS played,
               SUM(a.place < b.place) AS wins, SUM(a.place = b.place) AS draws,
               SUM(a.place > b.place) AS losses,
               ROUND(100.0 * (SUM(a.place < b.place) + 0.5 * SUM(a.place = b.place))
                     / COUNT(*), 1) AS score_pct
        FROM seats a JOIN seats b ON b.game_id = a.game_id AND b.seat != a.seat
        GROUP BY a.tournament_id, a.entrant, b.entrant;
CREATE VIEW "rankings" AS 
        SELECT s.*, r.rating AS elo, r.lo AS elo_lo, r.hi AS elo_hi, i.rating AS elo_incremental
        FROM standings s
        LEFT JOIN ratings r ON r.tournament_id = s.tournament_id AND r.entrant = s.entrant
             AND r.method = 'mle'
        LEFT JOIN ratings i ON i.tournament_id = s.tournament_id AND i.entrant = s.entrant
             AND i.method = 'elo'
        ORDER BY s.tournament_id, r.rating DESC;
CREATE INDEX remote_tokens_client_key ON remote_tokens (client_key);
COMMIT;
