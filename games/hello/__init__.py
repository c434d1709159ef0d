"""The tutorial game: every seated player says hello once.

A plugin package: its modules import each other relatively, so a renamed, zipped copy
works as a drop-in plugin.
"""
