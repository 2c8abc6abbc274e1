// Stand-in for OpenBLAS's CBLAS GEMM in the toolkit-only GPU check: the
// textbook triple loop, row-major only (all ops/matmul.cc asks for). It is
// the CPU reference the cuBLAS kernel is checked against there.
#pragma once

enum CBLAS_ORDER { CblasRowMajor = 101 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112 };

template <typename T>
void ReferenceGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, T alpha, const T* a, int lda,
                   const T* b, int ldb, T beta, T* c, int ldc) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      T sum = 0;
      for (int p = 0; p < k; ++p) {
        const T x = ta == CblasTrans ? a[p * lda + i] : a[i * lda + p];
        const T y = tb == CblasTrans ? b[j * ldb + p] : b[p * ldb + j];
        sum += x * y;
      }
      c[i * ldc + j] = alpha * sum + (beta == T(0) ? T(0) : beta * c[i * ldc + j]);
    }
  }
}

inline void cblas_sgemm(CBLAS_ORDER, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha,
                        const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  ReferenceGemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

inline void cblas_dgemm(CBLAS_ORDER, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, double alpha,
                        const double* a, int lda, const double* b, int ldb, double beta, double* c, int ldc) {
  ReferenceGemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
