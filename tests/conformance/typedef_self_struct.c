/* typedef struct Node Node: a list that points to its own type */
#include <stdio.h>
typedef struct Node Node;
struct Node { int value; Node *next; };
int main(void) {
    Node c = {3, 0}, b = {2, &c}, a = {1, &b};
    Node *p;
    int s = 0;
    for (p = &a; p; p = p->next) s = s * 10 + p->value;
    printf("%d\n", s);
    return 0;
}
