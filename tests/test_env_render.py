"""``rgb_array`` rendering: shape and type, what the picture shows, wrappers that need images."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import DependencyNotInstalled
from gymnasium.wrappers import RecordVideo, RenderCollection

import splitpoker.envs as envs
from splitpoker.envs.asia_poker import AsiaPokerEnv, AsiaPokerSettingEnv
from splitpoker.envs.render import CARD_FACE, FELT, HEIGHT, WIDTH

ALL_IDS = list(envs.ENV_IDS)
FELT_RGB = tuple(int(FELT[i:i + 2], 16) for i in (1, 3, 5))
FACE_RGB = np.array([int(CARD_FACE[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.uint8)


def _white_card_pixels(img):
    """Pixels of face-up cards (their ivory background)."""
    return int(np.all(img == FACE_RGB, axis=2).sum())


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_rgb_array_every_phase(env_id):
    env = gym.make(env_id, render_mode="rgb_array")
    _, info = env.reset(seed=3)
    frames = [env.render()]
    while True:
        _, _, term, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        frames.append(env.render())
        if term:
            break
    for f in frames:
        assert f.shape == (HEIGHT, WIDTH, 3) and f.dtype == np.uint8
        assert tuple(f[HEIGHT // 2, WIDTH - 5]) == FELT_RGB  # the table's felt
    # the last picture shows more cards face up than the first (the set hands and the dealer's)
    assert _white_card_pixels(frames[-1]) > _white_card_pixels(frames[0])


@pytest.mark.parametrize("env_id", ["splitpoker/AsiaPoker-v0", "splitpoker/PaiGowTable-v0"])
def test_sprite_frames_equal_frames_drawn_whole(env_id):
    """Frames pasted from cached text and card sprites are the pixels matplotlib draws for the
    whole frame (draw_table_whole, the reference), in every phase of several deals."""
    from splitpoker.envs.render import draw_table, draw_table_whole

    env = gym.make(env_id, render_mode="rgb_array").unwrapped
    compared = 0
    for seed in range(3):
        _, info = env.reset(seed=seed)
        while True:
            view = env._table_view()
            fast, whole = draw_table(view), draw_table_whole(view)
            assert fast.shape == whole.shape == (HEIGHT, WIDTH, 3)
            assert np.array_equal(fast, whole), (env_id, seed, int((fast != whole).any(axis=2).sum()))
            compared += 1
            legal = np.flatnonzero(info["action_mask"])
            _, _, term, _, info = env.step(int(legal[-1] if seed == 1 else legal[0]))
            if term:
                view = env._table_view()
                assert np.array_equal(draw_table(view), draw_table_whole(view))
                break
    assert compared >= 6


def test_pictures_differ_by_deal_and_show_cards_face_down_in_the_bet_phase():
    env = AsiaPokerEnv(render_mode="rgb_array")
    env.reset(seed=1)
    bet = env.render()
    assert _white_card_pixels(bet) == 0  # seven card backs, nothing face up
    env.step(0)
    a = env.render()
    env.reset(seed=2)
    env.step(0)
    b = env.render()
    assert _white_card_pixels(a) > 0 and not np.array_equal(a, b)


def test_foul_is_marked_in_red():
    env = AsiaPokerSettingEnv(render_mode="rgb_array")
    env.reset(seed=1)
    before = env.render()
    env.step(int(np.flatnonzero(env.fouled)[0]))
    after = env.render()
    red = lambda img: int(((img[..., 0] > 180) & (img[..., 1] < 40) & (img[..., 2] < 70)).sum())  # noqa: E731
    tag_area = (slice(130, 320), slice(480, 800))  # right of the hands: where FOULED is drawn
    assert red(after[tag_area]) > 200 and red(before[tag_area]) == 0


def test_render_is_not_computed_unless_called(monkeypatch):
    import splitpoker.envs.render

    calls = []
    monkeypatch.setattr(splitpoker.envs.render, "draw_table", lambda view: calls.append(view) or np.zeros((1, 1, 3), np.uint8))
    env = AsiaPokerSettingEnv(render_mode="rgb_array")
    for seed in range(5):
        env.reset(seed=seed)
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert calls == []
    env.render()
    assert len(calls) == 1 and calls[0].rows[0][0] == "you set"


def test_render_without_mode_warns_and_returns_none():
    env = AsiaPokerSettingEnv()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_render_collection_and_record_video(tmp_path):
    env = RenderCollection(gym.make("splitpoker/PaiGowPoker-v0", render_mode="rgb_array"))
    _, info = env.reset(seed=0)
    for _ in range(2):
        _, _, term, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
    frames = env.render()
    assert len(frames) == 3 and all(f.shape == (HEIGHT, WIDTH, 3) for f in frames)
    try:
        video = RecordVideo(gym.make("splitpoker/AsiaPokerSetting-v0", render_mode="rgb_array"), str(tmp_path))
    except DependencyNotInstalled as e:  # the render mode was accepted; only moviepy is missing
        assert "moviepy" in str(e).lower()
    else:
        video.reset(seed=0)
        video.close()
    with pytest.raises(ValueError, match="incompatible with RecordVideo"):
        RecordVideo(gym.make("splitpoker/AsiaPokerSetting-v0", render_mode="ansi"), str(tmp_path))


def test_table_view_names_the_shown_dealer_when_averaging():
    env = AsiaPokerSettingEnv(render_mode="rgb_array", dealer_samples=8)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    view = env._table_view()
    assert "dealer 1 of 8" in view.result[0] and [r[0] for r in view.rows] == ["you set", "dealer"]
    assert view.cards == env.player.tolist()
