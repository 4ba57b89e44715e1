package scripted

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// maxExpr caps the length of an expression Calculate accepts.
const maxExpr = 200

// Calculate evaluates an arithmetic expression of decimal numbers, + - * /,
// unary signs and parentheses, exactly (with rationals), and formats the
// result: an integer when it is one, otherwise a decimal.
func Calculate(expr string) (string, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return "", errors.New("no expression to compute")
	}
	if len(expr) > maxExpr {
		return "", fmt.Errorf("expression longer than %d characters", maxExpr)
	}
	node, err := parser.ParseExpr(strings.NewReplacer("×", "*", "÷", "/").Replace(expr))
	if err != nil {
		return "", fmt.Errorf("cannot read %q as arithmetic: %w", expr, err)
	}
	v, err := eval(node)
	if err != nil {
		return "", err
	}
	return format(v), nil
}

func eval(n ast.Expr) (constant.Value, error) {
	switch n := n.(type) {
	case *ast.ParenExpr:
		return eval(n.X)
	case *ast.BasicLit:
		if (n.Kind != token.INT && n.Kind != token.FLOAT) || strings.ContainsAny(n.Value, "eExXoObB_pP") {
			return nil, fmt.Errorf("unsupported number %s (use plain decimals)", n.Value)
		}
		lit := n.Value
		if n.Kind == token.INT { // "010" is ten here, not Go's octal eight
			if lit = strings.TrimLeft(lit, "0"); lit == "" {
				lit = "0"
			}
		}
		return constant.MakeFromLiteral(lit, n.Kind, 0), nil
	case *ast.UnaryExpr:
		x, err := eval(n.X)
		if err != nil {
			return nil, err
		}
		if n.Op != token.ADD && n.Op != token.SUB {
			return nil, fmt.Errorf("unsupported operator %s", n.Op)
		}
		return constant.UnaryOp(n.Op, x, 0), nil
	case *ast.BinaryExpr:
		x, err := eval(n.X)
		if err != nil {
			return nil, err
		}
		y, err := eval(n.Y)
		if err != nil {
			return nil, err
		}
		switch n.Op {
		case token.ADD, token.SUB, token.MUL:
		case token.QUO:
			if constant.Sign(y) == 0 {
				return nil, errors.New("division by zero")
			}
		default:
			return nil, fmt.Errorf("unsupported operator %s (use + - * / and parentheses)", n.Op)
		}
		if x.Kind() == constant.Int && y.Kind() == constant.Int && n.Op == token.QUO {
			x = constant.ToFloat(x) // exact division, not integer division
		}
		return constant.BinaryOp(x, n.Op, y), nil
	}
	return nil, fmt.Errorf("unsupported expression %T (use numbers, + - * / and parentheses)", n)
}

// format writes v as an integer when it is one, otherwise as the shortest
// decimal that reads back to the same float64.
func format(v constant.Value) string {
	if i := constant.ToInt(v); i.Kind() == constant.Int {
		return i.ExactString()
	}
	f, _ := constant.Float64Val(v)
	return strconv.FormatFloat(f, 'g', -1, 64)
}
