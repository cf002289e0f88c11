/* Case labels at any depth of a switch body (Duff's device), a switch whose body is one
   statement, and a labelled statement as the body of if: the label and its statement
   belong together (C11 6.8.1, 6.8.4). */
#include <stdio.h>

static void copy(int *to, const int *from, int count) {
    int n = (count + 3) / 4;
    switch (count % 4) {
    case 0: do { *to++ = *from++;
    case 3:      *to++ = *from++;
    case 2:      *to++ = *from++;
    case 1:      *to++ = *from++;
            } while (--n > 0);
    }
}

static int one_statement(int x) {
    switch (x) case 1: return 10;
    return 20;
}

static int nested(int x) {
    int r = 0;
    switch (x) {
    case 0:
        if (r == 0) {
    case 1:
            r += 1;
        }
        break;
    default:
        for (int i = 0; i < 2; i++) {
            switch (i) { case 1: r += 100; }
        }
    }
    return r;
}

int main(void) {
    int src[7] = {1, 2, 3, 4, 5, 6, 7}, dst[7] = {0};
    copy(dst, src, 7);
    for (int i = 0; i < 7; i++) printf("%d ", dst[i]);
    printf("\n%d %d\n", one_statement(1), one_statement(2));
    printf("%d %d %d\n", nested(0), nested(1), nested(5));
    int count = 0, boom = 0;
    if (0)
    again:
        boom++;
    if (count++ < 2) goto again;
    printf("boom %d count %d\n", boom, count);
    return 0;
}
