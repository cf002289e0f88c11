/* a linked list built with malloc and freed node by node */
#include <stdio.h>
#include <stdlib.h>
typedef struct node { int v; struct node *next; } node;
node *push(node *head, int v) {
    node *n = malloc(sizeof(node));
    n->v = v;
    n->next = head;
    return n;
}
int main(void) {
    node *list = NULL;
    int i;
    for (i = 1; i <= 5; i++) list = push(list, i * 10);
    while (list) {
        node *next = list->next;
        printf("%d ", list->v);
        free(list);
        list = next;
    }
    printf("\n");
    return 0;
}
