/* Bit-fields (C11 6.7.2.1): a store wraps the value into the field's bits, signed or
   unsigned as the type says (int signed, as gcc), in assignments, compound
   assignments, increments and initialisers, local and global; an unnamed field pads.
   Anonymous struct and union members: their fields are the enclosing struct's. */
#include <stdio.h>

struct flags {
    unsigned ready : 1;
    unsigned mode : 3;
    int delta : 4;
    unsigned : 2;
    long big : 40;
    unsigned long ubig : 36;
};

struct flags g = { 3, 9, 9, 1L << 40, 0x1fffffffffUL };

struct point {
    int kind;
    union {
        struct { int x, y; };
        int xy[2];
    };
    struct { double w; };
};

struct point origin = { 1, { { 2, 3 } }, { 0.5 } };

int main(void) {
    printf("%u %u %d %ld %lu\n", g.ready, g.mode, g.delta, g.big, g.ubig);
    struct flags f = { 1, 5, -3, 7, 1 };
    f.mode += 5;
    f.delta = 9;
    f.ready++;
    int old = f.delta--;
    f.big = (1L << 39) + (1L << 39);
    f.ubig = -1;
    printf("%u %u %d %d %ld %lu\n", f.ready, f.mode, f.delta, old, f.big, f.ubig);
    int v = (f.mode = 12);
    printf("%d %u\n", v, f.mode);
    struct point p = origin;
    p.x += 10;
    printf("%d %d %d %d %d %g\n", p.kind, p.x, p.y, p.xy[0], p.xy[1], p.w);
    struct point q = { .y = 4, .kind = 7 };
    printf("%d %d %d\n", q.kind, q.x, q.y);
    return 0;
}
