#include "cpc.h"
#define n 64
arch torus T[n][n];
phyArch mesh L[n][n];
channel float Achan[n][n], Bchan[n][n];
void main() {
     float a[n][n], b[n][n], c[n][n];
     int i, j;
     timeOff();
     for (i=0; i<n; i++)
          for (j=0; j<n; j++)
               a[i][j] = rand()*5;
     for (i=0; i<n; i++)
          for (j=0; j< n; j++)
               b[i][j] = rand()*5;
     timeOn();
     pMultify(a, b, c);
}
void pMultify(float &a[n][n], float &b[n][n],
                              float &c[n][n]) {
     int i, j;
     forall (i from 0 to n-1)
          forall (j from 0 to n-1)
               fork [i*n+j; Achan[i][j], Bchan[i][j]]
                    multiply(i, j, a[i][(j+i) % n],
                              b[(i+j) % n][j], c[i][j]);
}
void multiply(int row, int col, float myA, float myB,
                                         float &mainC) {
     int iter, above, left;
     float myC;
     if (row>0) above = row - 1;
                                  // up neighbor
     else
                above = n - 1;
     if (col>0) left = col - 1;
                                  // left neighbor
     else
                left = n - 1;
    myC = 0;
    for (iter=0; iter<n; iter++) {
          Achan[row][left] = myA;
               // send myA in leftward rotation
          Bchan[above][col] = myB;
               // send myB in upward rotation
         myC += myA * myB;
         myA = Achan[row][col];
                                       // receive new myA
         myB = Bchan[row][col];  // receive new myB
    }
    mainC = myC;  // Send final value to main process
}
