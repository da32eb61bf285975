import stonegarden


def test_registry_lists_blooms():
    assert "blooms" in stonegarden.available_games()
