/* a struct holding a pointer to its own type (a tree) */
#include <stdio.h>
struct tree { int key; struct tree *left, *right; };
int sum(struct tree *t) { return t ? t->key + sum(t->left) + sum(t->right) : 0; }
int depth(struct tree *t) {
    int l, r;
    if (!t) return 0;
    l = depth(t->left); r = depth(t->right);
    return 1 + (l > r ? l : r);
}
int main(void) {
    struct tree d = {4, 0, 0}, e = {5, 0, 0}, b = {2, &d, &e}, c = {3, 0, 0}, a = {1, &b, &c};
    printf("%d %d\n", sum(&a), depth(&a));
    return 0;
}
