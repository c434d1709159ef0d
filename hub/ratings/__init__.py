"""Ratings per game type (and variant where it matters) for accounts and bots:
openskill's Plackett-Luce model (:mod:`hub.rating`), applied after every
finished rated game by :class:`hub.ratings.service.RatingService` and kept in the store
(:mod:`hub.store.ratings`).  See docs/ratings.md.
"""
