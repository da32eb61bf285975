"""Blobs and Tumbling Dice (Cameron Browne, 2009): the boardless game of square dice."""
