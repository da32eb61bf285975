"""The package's front door: the registry lists every game in registration order, and each
one it lists is made by ``make`` and plays its first move."""

import stonegarden


def test_every_listed_game_is_made_and_plays_a_first_move():
    games = stonegarden.available_games()
    assert games[:2] == ["blooms", "blooms-territory"]
    for game_id in games:
        game = stonegarden.make(game_id)
        state = game.initial_state()
        if game.current_player(state) == stonegarden.CHANCE:
            action = game.chance_outcomes(state)[0][0]
        else:
            action = int(game.legal_actions(state)[0])
        after = game.play(state, action)
        assert after.ply == 1 and game.id == game_id
