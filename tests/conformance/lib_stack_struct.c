/* a stack ADT with typedef, malloc and an enum of results */
#include <stdio.h>
#include <stdlib.h>
typedef enum { OK, EMPTY, FULL } status;
typedef struct { int *items; int top, cap; } stack;
stack *make(int cap) {
    stack *s = malloc(sizeof(stack));
    s->items = malloc(cap * sizeof(int));
    s->top = 0; s->cap = cap;
    return s;
}
status push(stack *s, int v) { if (s->top == s->cap) return FULL; s->items[s->top++] = v; return OK; }
status pop(stack *s, int *v) { if (s->top == 0) return EMPTY; *v = s->items[--s->top]; return OK; }
int main(void) {
    stack *s = make(3);
    int v, i;
    for (i = 0; i < 4; i++) printf("%d", push(s, i));
    printf(" ");
    while (pop(s, &v) == OK) printf("%d", v);
    printf(" %d\n", pop(s, &v));
    return 0;
}
