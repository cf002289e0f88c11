/* cpc-only: sizeof counts words (int, char, float and pointers are one word each) */
#include <stdio.h>
struct p { int x; char c; float f; int *q; };
int main(void) {
    int a[10];
    printf("%d %d %d %d %d %d\n", (int)sizeof(int), (int)sizeof(char), (int)sizeof(int *),
           (int)sizeof(struct p), (int)sizeof a, (int)(sizeof a / sizeof a[0]));
    return 0;
}
