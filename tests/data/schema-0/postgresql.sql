CREATE TABLE accounts (
	id SERIAL NOT NULL, 
	name VARCHAR(24) NOT NULL, 
	name_key VARCHAR(24) NOT NULL, 
	password_hash VARCHAR(200) NOT NULL, 
	created TIMESTAMP WITH TIME ZONE NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (name_key)
);

CREATE TABLE games (
	id VARCHAR(32) NOT NULL, 
	created TIMESTAMP WITH TIME ZONE NOT NULL, 
	mode VARCHAR(8) NOT NULL, 
	start TEXT NOT NULL, 
	names JSON NOT NULL, 
	ai_level VARCHAR(32), 
	ai_seat INTEGER, 
	token_hashes JSON NOT NULL, 
	invite_hash VARCHAR(64), 
	analysis JSON, 
	PRIMARY KEY (id)
);

CREATE TABLE account_games (
	account_id INTEGER NOT NULL, 
	game_id VARCHAR(32) NOT NULL, 
	seat VARCHAR(8) NOT NULL, 
	PRIMARY KEY (account_id, game_id), 
	FOREIGN KEY(account_id) REFERENCES accounts (id), 
	FOREIGN KEY(game_id) REFERENCES games (id)
);

CREATE TABLE challenges (
	game_id VARCHAR(32) NOT NULL, 
	kind VARCHAR(8) NOT NULL, 
	control VARCHAR(12) NOT NULL, 
	rated BOOLEAN NOT NULL, 
	creator_id INTEGER, 
	creator_name VARCHAR(40) NOT NULL, 
	creator_rating FLOAT NOT NULL, 
	for_id INTEGER, 
	for_name VARCHAR(40), 
	within FLOAT, 
	created TIMESTAMP WITH TIME ZONE NOT NULL, 
	taken TIMESTAMP WITH TIME ZONE, 
	PRIMARY KEY (game_id), 
	FOREIGN KEY(game_id) REFERENCES games (id), 
	FOREIGN KEY(creator_id) REFERENCES accounts (id), 
	FOREIGN KEY(for_id) REFERENCES accounts (id)
);

CREATE INDEX ix_challenges_created ON challenges (created);

CREATE INDEX ix_challenges_taken ON challenges (taken);

CREATE TABLE chat (
	id SERIAL NOT NULL, 
	game_id VARCHAR(32) NOT NULL, 
	seat INTEGER NOT NULL, 
	text VARCHAR(300) NOT NULL, 
	created TIMESTAMP WITH TIME ZONE NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(game_id) REFERENCES games (id)
);

CREATE INDEX ix_chat_game_id ON chat (game_id);

CREATE TABLE clocks (
	game_id VARCHAR(32) NOT NULL, 
	control JSON NOT NULL, 
	deadline TIMESTAMP WITH TIME ZONE, 
	PRIMARY KEY (game_id), 
	FOREIGN KEY(game_id) REFERENCES games (id)
);

CREATE INDEX ix_clocks_deadline ON clocks (deadline);

CREATE TABLE events (
	id SERIAL NOT NULL, 
	game_id VARCHAR(32) NOT NULL, 
	number INTEGER NOT NULL, 
	kind VARCHAR(8) NOT NULL, 
	value VARCHAR(64) NOT NULL, 
	seat INTEGER, 
	client_id VARCHAR(64), 
	created TIMESTAMP WITH TIME ZONE NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (game_id, number), 
	FOREIGN KEY(game_id) REFERENCES games (id)
);

CREATE INDEX ix_events_game_id ON events (game_id);

CREATE TABLE lessons (
	game_id VARCHAR(32) NOT NULL, 
	number INTEGER NOT NULL, 
	PRIMARY KEY (game_id), 
	FOREIGN KEY(game_id) REFERENCES games (id)
);

CREATE TABLE rated_games (
	game_id VARCHAR(32) NOT NULL, 
	family VARCHAR(16) NOT NULL, 
	accounts JSON NOT NULL, 
	settled BOOLEAN NOT NULL, 
	PRIMARY KEY (game_id), 
	FOREIGN KEY(game_id) REFERENCES games (id)
);

CREATE INDEX ix_rated_games_settled ON rated_games (settled);

CREATE TABLE rating_changes (
	id SERIAL NOT NULL, 
	game_id VARCHAR(32) NOT NULL, 
	account_id INTEGER NOT NULL, 
	family VARCHAR(16) NOT NULL, 
	before FLOAT NOT NULL, 
	after FLOAT NOT NULL, 
	rd FLOAT NOT NULL, 
	at TIMESTAMP WITH TIME ZONE NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (game_id, account_id), 
	FOREIGN KEY(game_id) REFERENCES games (id), 
	FOREIGN KEY(account_id) REFERENCES accounts (id)
);

CREATE INDEX ix_rating_changes_game_id ON rating_changes (game_id);

CREATE INDEX ix_rating_changes_account_id ON rating_changes (account_id);

CREATE TABLE ratings (
	account_id INTEGER NOT NULL, 
	family VARCHAR(16) NOT NULL, 
	rating FLOAT NOT NULL, 
	rd FLOAT NOT NULL, 
	volatility FLOAT NOT NULL, 
	games INTEGER NOT NULL, 
	updated TIMESTAMP WITH TIME ZONE NOT NULL, 
	PRIMARY KEY (account_id, family), 
	FOREIGN KEY(account_id) REFERENCES accounts (id)
);

CREATE TABLE seeks (
	id VARCHAR(16) NOT NULL, 
	secret_hash VARCHAR(64) NOT NULL, 
	account_id INTEGER, 
	name VARCHAR(40) NOT NULL, 
	rating FLOAT NOT NULL, 
	control VARCHAR(12) NOT NULL, 
	rated BOOLEAN NOT NULL, 
	created TIMESTAMP WITH TIME ZONE NOT NULL, 
	polled TIMESTAMP WITH TIME ZONE NOT NULL, 
	game_id VARCHAR(32), 
	token VARCHAR(64), 
	seat INTEGER, 
	PRIMARY KEY (id), 
	FOREIGN KEY(account_id) REFERENCES accounts (id)
);

CREATE INDEX ix_seeks_polled ON seeks (polled);

CREATE TABLE seen (
	account_id INTEGER NOT NULL, 
	at TIMESTAMP WITH TIME ZONE NOT NULL, 
	PRIMARY KEY (account_id), 
	FOREIGN KEY(account_id) REFERENCES accounts (id)
);

CREATE INDEX ix_seen_at ON seen (at);

CREATE TABLE sessions (
	token_hash VARCHAR(64) NOT NULL, 
	account_id INTEGER NOT NULL, 
	created TIMESTAMP WITH TIME ZONE NOT NULL, 
	PRIMARY KEY (token_hash), 
	FOREIGN KEY(account_id) REFERENCES accounts (id)
);

CREATE INDEX ix_sessions_account_id ON sessions (account_id);
