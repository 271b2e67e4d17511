-- Request ids the platform has answered (commands/src/together.rs): a
-- command's (scope, request id) claimed in the same transaction as the
-- events it wrote, so a repeat of the request - in any process - finds the
-- first outcome instead of carrying the command out again. `do_bet` claims
-- scope 'do_bet:{member id}', answer = the bet id.
CREATE TABLE IF NOT EXISTS request_claims
(
    scope      text NOT NULL,
    request_id text NOT NULL,
    answer     text NOT NULL,
    PRIMARY KEY (scope, request_id)
);
