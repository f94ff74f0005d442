-- Salary within 100 and age within 2 years: a box in the l_inf sense would need equal r,
-- so the goal is written as an AND of two per-column terms.
SELECT
    employee.salary approx 100 AND employee.age approx 2
FROM employee
WHERE employee.dept = 'it';
