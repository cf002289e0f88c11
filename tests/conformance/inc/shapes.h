#ifndef SHAPES_H
#define SHAPES_H
#define SIDES_SQUARE 4
int perimeter(int sides, int length) { return sides * length; }
#endif
