"""Timelines: what the other people of an environment do, and when.

A template (`_detour.timeline`) or a suite test (`timeline`) declares steps: at a time on the
environment's clock ("at +2m john posts in #engineering"), or in answer to the agent ("when
the agent replies in that thread, sarah reacts"). A step acts through its pack as that person
(the pack's `act`: the same call the person's own client would make, with their token), so it
is in the diff as theirs and emits events like any other change. Steps fire when their time
comes: `detour env advance` fires what a move of the clock made due, and an open event
connection (Socket Mode) fires them as a live clock reaches them.
"""
