"""``render_mode="rgb_array"``: the table as a picture, on the AEC and single-agent envs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import render_test

import uno_env
from uno_env.engine import cards
from uno_env.envs.render import FRENCH_INK, RGB_SIZE, UNO_RGB, WILD_RGB, render_rgb

WIDTH, HEIGHT = RGB_SIZE


def colours_in(image: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(int(c) for c in px) for px in np.unique(image.reshape(-1, 3), axis=0)}


def discard_region(image: np.ndarray) -> np.ndarray:
    """The pixels around the discard pile (right of the centre)."""
    return image[int(HEIGHT * 0.25) : int(HEIGHT * 0.6), WIDTH // 2 : WIDTH // 2 + 120]


def pos_env(preset: str, position: str, **kwargs: object) -> uno_env.raw_env:
    env = uno_env.env(preset, 3, render_mode="rgb_array", **kwargs)
    env.reset(seed=0, options={"position": position})
    return env


@pytest.mark.parametrize("preset", ["uno", "macao"])
def test_render_test_passes_for_every_mode(preset: str, capsys: pytest.CaptureFixture[str]) -> None:
    env = uno_env.env(preset, 3)
    assert env.metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    render_test(
        lambda render_mode=None: uno_env.env(preset, 3, render_mode=render_mode),
        custom_tests={"rgb_array": lambda img: img.shape == (HEIGHT, WIDTH, 3) and len(colours_in(img)) > 50},
    )
    capsys.readouterr()


@pytest.mark.parametrize("colour", [0, 1, 2, 3])
def test_the_discard_top_is_drawn_in_its_colour(colour: int) -> None:
    letter = "RYGB"[colour]
    top = f"{letter}7"
    env = pos_env(
        "uno",
        f"hands=W G1 B2/Y3 Y4/R5 R6; discard={top}; draw=G4 G5 G6; colour={letter}; seat=0; dir=+; "
        "phase=play",
    )
    image = env.render()
    assert isinstance(image, np.ndarray) and image.shape == (HEIGHT, WIDTH, 3) and image.dtype == np.uint8
    assert len(colours_in(image)) > 50  # cards, text and felt: far from blank
    region = discard_region(image)
    share = np.all(region == np.array(UNO_RGB[colour], dtype=np.uint8), axis=-1).mean()
    assert share > 0.1, f"the {top} card's colour covers {share:.1%} of the discard area"
    for other in range(4):
        if other != colour:
            assert not np.all(region == np.array(UNO_RGB[other], dtype=np.uint8), axis=-1).any()


def test_the_shown_hand_and_the_position_change_the_picture() -> None:
    position = "hands=WD4 G1 B2/Y3 Y4/R5 R6; discard=R7; draw=G4 G5 G6; colour=R; seat=0; dir=+; phase=play"
    seat0 = pos_env("uno", position, render_seat=0).render()
    seat1 = pos_env("uno", position, render_seat=1).render()
    assert isinstance(seat0, np.ndarray) and isinstance(seat1, np.ndarray)
    assert not np.array_equal(seat0, seat1)
    bottom0, bottom1 = seat0[HEIGHT - 110 :], seat1[HEIGHT - 110 :]
    assert np.all(bottom0 == np.array(WILD_RGB, dtype=np.uint8), axis=-1).any()  # the WD4 in seat 0's hand
    assert np.all(bottom1 == np.array(UNO_RGB[1], dtype=np.uint8), axis=-1).any()  # seat 1's yellow cards
    env = pos_env("uno", position)  # render_seat None: the agent to move
    before = env.render()
    assert isinstance(before, np.ndarray) and np.array_equal(before, seat0)
    env.step(uno_env.parse_action("WD4"))
    after = env.render()
    assert isinstance(after, np.ndarray) and not np.array_equal(before, after)


def below_seat(image: np.ndarray, seat_side: str) -> np.ndarray:
    """The strip under the left (``"left"``) or right seat's box of a 3-player table seen from
    seat 0: seat 1 sits upper left, seat 2 upper right (clockwise from the bottom)."""
    columns = slice(40, 200) if seat_side == "left" else slice(WIDTH - 200, WIDTH - 40)
    return image[int(HEIGHT * 0.3) : int(HEIGHT * 0.5), columns]


def has_colour(region: np.ndarray, rgb: tuple[int, int, int]) -> bool:
    return bool(np.all(region == np.array(rgb, dtype=np.uint8), axis=-1).any())


def test_hands_a_zero_showed_the_shown_seat_are_drawn_face_up() -> None:
    """H-ZEROSEE-1: a 0 shows its player the other hands; the picture from that seat draws them
    face up under their seats while they are unchanged, as the text table does."""
    position = "hands=R0 G5 G6/Y1 Y2/B3 B4; discard=R5; draw=G1 G2 G3; colour=R; seat=0; dir=+; phase=play"
    env = pos_env("uno", position, render_seat=0, zero_reveals=True)
    before = env.render()
    assert isinstance(before, np.ndarray)
    assert not has_colour(below_seat(before, "left"), UNO_RGB[1])
    assert not has_colour(below_seat(before, "right"), UNO_RGB[3])
    env.step(uno_env.parse_action("R0"))
    seen = env.render()
    assert isinstance(seen, np.ndarray)
    assert has_colour(below_seat(seen, "left"), UNO_RGB[1])  # seat 1's Y1 Y2
    assert has_colour(below_seat(seen, "right"), UNO_RGB[3])  # seat 2's B3 B4
    from_seat_1 = pos_env("uno", position, render_seat=1, zero_reveals=True)
    from_seat_1.step(uno_env.parse_action("R0"))
    other = from_seat_1.render()  # seat 1 saw nothing: seat 0 and seat 2 stay card backs
    assert isinstance(other, np.ndarray)
    assert not has_colour(below_seat(other, "left"), UNO_RGB[2])  # seat 2 (upper left from seat 1)
    assert not has_colour(below_seat(other, "right"), UNO_RGB[2])  # seat 0's G5 G6
    env.step(uno_env.parse_action("draw"))  # seat 1's hand changed: face down again
    after = env.render()
    assert isinstance(after, np.ndarray)
    assert not has_colour(below_seat(after, "left"), UNO_RGB[1])
    assert has_colour(below_seat(after, "right"), UNO_RGB[3])


def test_french_cards_are_white_with_suit_ink() -> None:
    env = pos_env(
        "macao", "hands=7H 2C QS/3D 4D/5S 6S; discard=8H; draw=9C 10C JC; colour=H; seat=0; dir=+; phase=play"
    )
    image = env.render()
    assert isinstance(image, np.ndarray)
    region = discard_region(image)
    assert np.all(region == np.array((252, 252, 248), dtype=np.uint8), axis=-1).mean() > 0.1
    assert np.all(region == np.array(FRENCH_INK[2], dtype=np.uint8), axis=-1).any()  # the heart
    assert not np.all(region == np.array(UNO_RGB[0], dtype=np.uint8), axis=-1).any()


def test_every_face_draws(tmp_path: Path) -> None:
    decks: tuple[tuple[str, cards.DeckFamily], ...] = (("uno_mario", "uno"), ("mau_mau", "french"))
    for preset, deck in decks:
        game = uno_env.Game(preset, 4, seed=1)
        state = game.state.copy()
        from uno_env.engine import layout as L

        state[L.HANDS : L.HANDS + L.MAX_FACES] = 0
        state[L.HANDS : L.HANDS + cards.NUM_FACES[deck]] = 1  # every face once in seat 0's hand
        image = render_rgb(state, deck, cards.NUM_FACES[deck], 0, None, preset)
        assert image.shape == (HEIGHT, WIDTH, 3) and len(colours_in(image)) > 50


def test_single_agent_env_renders_the_learners_table() -> None:
    env = uno_env.SingleAgentEnv("uno", 3, seat=1, render_mode="rgb_array")
    env.reset(seed=3)
    image = env.render()
    assert isinstance(image, np.ndarray) and image.shape == (HEIGHT, WIDTH, 3)
    assert "rgb_array" in env.metadata["render_modes"]


def test_frames_of_a_whole_game_make_a_video(tmp_path: Path) -> None:
    from training.replay import write_video

    env = uno_env.env("uno", 3, render_mode="rgb_array")
    env.reset(seed=5)
    frames = [env.render()]
    for agent in env.agent_iter(40):
        obs, _, term, trunc, _ = env.last()
        assert obs is not None
        env.step(None if term or trunc else env.action_space(agent).sample(obs["action_mask"]))
        frames.append(env.render())
    assert all(isinstance(f, np.ndarray) and f.shape == (HEIGHT, WIDTH, 3) for f in frames)
    path = tmp_path / "game.gif"
    write_video(frames, path, fps=4)  # type: ignore[arg-type]
    assert path.stat().st_size > 1000


def test_pettingzoo_record_video_wrapper(tmp_path: Path) -> None:
    pytest.importorskip("moviepy")
    from pettingzoo.utils.wrappers import RecordVideo

    folder = tmp_path / "videos"  # a new folder: RecordVideo warns before overwriting an existing one
    table = uno_env.env("uno", 2, render_mode="rgb_array")
    env = RecordVideo(table, str(folder), episode_trigger=lambda e: True)
    env.reset(seed=1)
    for agent in env.agent_iter(30):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else env.action_space(agent).sample(obs["action_mask"]))
    env.close()
    assert list(folder.glob("*.mp4"))
